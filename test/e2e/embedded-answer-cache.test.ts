import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminToken, loadConfig } from "@newsroom/shared/config";
import { answerCacheLookups, requestMetrics } from "@newsroom/shared/metrics";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort } from "@newsroom/shared/testing/ports";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";

/**
 * The embedded gateway keeps public answers as the distributed one does (the one cache of public
 * answers): a warm public read is answered before routing, exactly as public-read's routed
 * answer was, and a publish or an unpublish through the workspace shows on the next reads, the
 * gateway's copies dropped by the one purge.
 */
let embedded: Embedded;
let token = "";

beforeAll(async () => {
  const config = loadConfig({
    PGLITE_DIR: "memory",
    PORT: String(await freePort()),
    WORKSPACE_PORT: String(await freePort()),
  });
  token = adminToken(config);
  embedded = await startEmbedded(config);
}, 60_000);

afterAll(() => embedded?.stop());

async function workspace(method: string, path: string, body?: unknown) {
  const response = await fetch(`${embedded.workspaceUrl}/internal/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
  return response.json();
}

async function transition(id: string, action: string) {
  await workspace("POST", `/stories/${id}/transitions`, { action, actor_role: "approver" });
}

async function slugsOfIndex(): Promise<string[]> {
  const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
  return index.items.map((item: { slug: string }) => item.slug);
}

/** The gateway answer cache's hits so far. */
async function hits(): Promise<number> {
  const { values } = await answerCacheLookups.get();
  return values.find((value) => value.labels.outcome === "hit")?.value ?? 0;
}

/** How many GET 200s `http_requests_total` counts under this service and route. */
function counted(service: string, route: string): number {
  const series = `http_requests_total{service="${service}",route="${route}",method="GET",status="200",status_class="2xx"}`;
  const line = requestMetrics
    .exposition()
    .split("\n")
    .find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** Headers that differ between any two answers, whichever path gave them. */
const PER_ANSWER = new Set(["x-request-id", "date", "age"]);

/** An answer's status, body and headers but those each answer has its own of. */
async function comparable(response: Response) {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (!PER_ANSWER.has(name)) headers.push([name, value]);
  });
  return { status: response.status, body: await response.text(), headers: headers.sort() };
}

describe("the embedded gateway's answer cache", () => {
  test("a kept answer is public-read's routed answer: status, body and headers", async () => {
    const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
    const slug = index.items[0].slug;
    const targets = [
      `/v1/public/newsroom/${slug}`,
      `/v1/public/newsroom?type=${index.items[0].type}&equal=1`,
      "/v1/public/sitemap/newsroom",
      "/v1/public/search/newsroom",
      "/newsroom",
      `/newsroom/${slug}`,
      "/sitemap.xml",
    ];
    for (const target of targets) {
      const routed = await fetch(`${embedded.url}${target}`);
      const hitsBefore = await hits();
      const kept = await fetch(`${embedded.url}${target}`);
      expect({ target, hits: await hits() }).toEqual({ target, hits: hitsBefore + 1 });
      const expected = await comparable(routed);
      expect(expected.status, target).toBe(200);
      expect(await comparable(kept), target).toEqual(expected);
      // A conditional GET: the kept copy's 304 is the one a read that reaches public-read gets
      // (a target spelled with a parameter the routes ignore, not kept yet).
      const etag = routed.headers.get("etag")!;
      const conditional = { headers: { "if-none-match": etag } };
      const revalidated = await fetch(`${embedded.url}${target}`, conditional);
      const hitsThen = await hits();
      const respelled = `${target}${target.includes("?") ? "&" : "?"}unused=1`;
      const routedRevalidation = await fetch(`${embedded.url}${respelled}`, conditional);
      expect(await hits(), target).toBe(hitsThen);
      expect(routedRevalidation.status, target).toBe(304);
      expect(await comparable(revalidated), target).toEqual(await comparable(routedRevalidation));
    }
  });

  test("a second read is the kept answer, counted under the route that first answered it", async () => {
    const before = counted("public-read", "/v1/public/newsroom");
    const first = await fetch(`${embedded.url}/v1/public/newsroom?type=insight`);
    const hitsBefore = await hits();
    const second = await fetch(`${embedded.url}/v1/public/newsroom?type=insight`);
    expect(await hits()).toBe(hitsBefore + 1);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get("age")).toBe("0");
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    // The spec's headers of a public content answer, on the kept copy as on the first.
    expect(second.headers.get("cache-control")).toBe(
      "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800",
    );
    expect(second.headers.get("cache-tag")).toContain("newsroom-index");
    expect(second.headers.get("cache-tag")).toBe(first.headers.get("cache-tag"));
    expect(second.headers.get("x-service-version")).toBe(first.headers.get("x-service-version"));
    expect(second.headers.get("x-request-id")).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(second.headers.get("x-answer-organization")).toBeNull();
    // A conditional GET with the kept ETag: 304 from the kept copy, its caching headers, no body.
    const revalidated = await fetch(`${embedded.url}/v1/public/newsroom?type=insight`, {
      headers: { "if-none-match": first.headers.get("etag")! },
    });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe("");
    expect(revalidated.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(revalidated.headers.get("cache-tag")).toBe(first.headers.get("cache-tag"));
    expect(counted("public-read", "/v1/public/newsroom")).toBe(before + 2);
  });

  test("a publish and an unpublish show on the next reads of warm answers", async () => {
    const slug = `kept-answer-${Date.now()}`;
    const item = `${embedded.url}/v1/public/newsroom/${slug}`;
    // Warm: the index kept, the unknown item answered 404 (never kept).
    await slugsOfIndex();
    expect(await slugsOfIndex()).not.toContain(slug);
    expect((await fetch(item)).status).toBe(404);

    const story = await workspace("POST", "/orgs/armage/stories", {
      type: "insight",
      slug,
      title: "Kept answers",
      summary: "A story published while the newsroom's answer is kept.",
      body: [{ type: "paragraph", text: "Purged." }],
      topics: ["caching"],
    });
    for (const action of ["submit", "approve", "publish"]) await transition(story.id, action);
    await eventually(async () => (await slugsOfIndex()).includes(slug), {
      message: "the published story in the newsroom index",
      timeoutMs: 10_000,
    });
    expect((await fetch(item)).status).toBe(200);
    // Kept again, with the story.
    const hitsBefore = await hits();
    const kept = await fetch(`${embedded.url}/v1/public/newsroom`);
    expect(await kept.text()).toContain(slug);
    await fetch(item);
    expect(await hits()).toBe(hitsBefore + 2);

    await transition(story.id, "unpublish");
    await eventually(async () => !(await slugsOfIndex()).includes(slug), {
      message: "the unpublished story gone from the newsroom index",
      timeoutMs: 10_000,
    });
    await eventually(async () => (await fetch(item)).status === 404, {
      message: "the unpublished story's item gone",
      timeoutMs: 10_000,
    });
  }, 30_000);
});
