import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import {
  type Answer,
  client,
  createOrg,
  HOUSE_ORG,
  type Service,
  seedStories,
  testConfig,
} from "./support/world.ts";

const SLOW = 60_000;
/** Headers that differ between any two answers, whichever path gave them. */
const PER_REQUEST = new Set(["x-request-id", "date"]);

/**
 * The one fast path of the service: a GET whose exact target was answered before is answered
 * from the read cache before routing (caching/reader.ts, asked through the kit's
 * `beforeRouting`). It must answer exactly as the router does from the same cache entry. The
 * full path is reached with a target spelled differently (a trailing `?` or `&`): the same
 * parameters, so the same cache entry, but a target the fast path has not seen.
 */
describe("the read cache's fast path answers as the full path does", () => {
  let database: TestDatabase;
  let bus: MemoryBus;
  let service: Service;
  let get: ReturnType<typeof client>;

  beforeAll(async () => {
    bus = new MemoryBus();
    database = await testDatabase();
    const orgId = await createOrg(database.db, HOUSE_ORG, true);
    await seedStories(database.db, orgId, [
      { type: "insight", status: "published", slug: "first-story", topics: ["world"] },
    ]);
    service = await createPublicReadService(testRuntime({ database, bus, config: testConfig() }));
    get = client(service);
  }, SLOW);
  afterAll(async () => {
    await service.stop();
    await bus.close();
    await database.close();
  });

  /** The first answer (routed, read), then the fast path's and the full path's from the cache. */
  async function threeWays(
    target: string,
    respelled: string,
    headers: Record<string, string> = {},
  ) {
    const first = await get(target, headers);
    expect(service.cache.getByTarget(target), target).toBeDefined();
    expect(service.cache.getByTarget(respelled), respelled).toBeUndefined();
    const fast = await get(target, headers);
    const full = await get(respelled, headers);
    return { first, fast, full };
  }

  function expectSameAnswer(actual: Answer, expected: Answer, label: string): void {
    expect(actual.status, label).toBe(expected.status);
    expect(actual.text, label).toBe(expected.text);
    expect(headersOf(actual), label).toEqual(headersOf(expected));
  }

  for (const [target, respelled] of [
    ["/v1/public/newsroom?type=insight", "/v1/public/newsroom?type=insight&"],
    ["/v1/public/newsroom/first-story", "/v1/public/newsroom/first-story?"],
    ["/v1/public/topics/world", "/v1/public/topics/world?"],
    ["/v1/public/sitemap/newsroom", "/v1/public/sitemap/newsroom?"],
    ["/newsroom", "/newsroom?"],
  ] as const) {
    test(`a 200: ${target}`, async () => {
      const { first, fast, full } = await threeWays(target, respelled);
      expect(first.status).toBe(200);
      expectSameAnswer(fast, full, "fast vs full");
      expectSameAnswer(fast, first, "fast vs first");
    });
  }

  test("a 404 names each request's own id, and is otherwise the same", async () => {
    const { fast, full } = await threeWays(
      "/v1/public/newsroom/no-such-item",
      "/v1/public/newsroom/no-such-item?",
    );
    expect(fast.status).toBe(404);
    expect(fast.body.error.request_id).toBe(fast.headers.get("x-request-id"));
    expect(full.body.error.request_id).toBe(full.headers.get("x-request-id"));
    const withoutId = (answer: Answer) => ({
      ...answer,
      text: JSON.stringify({ ...answer.body, error: { ...answer.body.error, request_id: "" } }),
    });
    expectSameAnswer(withoutId(fast), withoutId(full), "fast vs full");
  });

  test("a 304 to If-None-Match", async () => {
    const etag = (await get("/v1/public/newsroom")).headers.get("etag")!;
    const { fast, full } = await threeWays("/v1/public/newsroom", "/v1/public/newsroom?", {
      "if-none-match": etag,
    });
    expect(fast.status).toBe(304);
    expectSameAnswer(fast, full, "fast vs full");
  });
});

function headersOf(answer: Answer): [string, string][] {
  const headers: [string, string][] = [];
  answer.headers.forEach((value, name) => {
    if (!PER_REQUEST.has(name)) headers.push([name, value]);
  });
  return headers.sort();
}
