import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encodeCursor } from "../src/content/cursor.ts";
import { buildWorld, type World } from "./support/world.ts";

/**
 * Parameter fuzzing: every parameter of the spec's table with malformed values (too long,
 * unicode, `../`, SQL metacharacters, empty, near misses) answers 400 `invalid_parameters`
 * naming the field, never 500.
 */
const SLOW = 60_000;
let world: World;

beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

const UUID = "0b7c6a52-1d1e-4c43-9d53-0f2b8d1e5a11";
const b64 = (text: string) => Buffer.from(text).toString("base64url");

const MALFORMED = {
  type: [
    "",
    "INSIGHT",
    "insight ",
    "news",
    "../insight",
    "insight' OR '1'='1",
    "insight;drop table stories",
    "ïnsight",
    "x".repeat(300),
    "insight,video",
    "in_the_news\n",
    "\u0000",
  ],
  topic: [
    "",
    "Policy",
    "a_b",
    "-policy",
    "policy-",
    "a--b",
    "../etc/passwd",
    "' OR '1'='1",
    "ünïcode",
    "a".repeat(121),
    "a b",
    "policy%",
    "\u0000",
  ],
  cursor: [
    "",
    "!!!",
    "a".repeat(201),
    "../x",
    "' OR 1=1 --",
    "ü",
    "abc",
    "AAAA",
    "abc=",
    "a+b/c",
    b64(`p1|2026-13-01T00:00:00.000000Z|${UUID}`),
    b64(`p1|2026-02-30T00:00:00.000000Z|${UUID}`),
    b64(`p1|2026-01-01T25:00:00.000000Z|${UUID}`),
    b64("p1|2026-01-01T00:00:00.000000Z|not-a-uuid"),
    b64(`p1|2026-01-01T00:00:00.000000Z|${UUID}'); drop table stories; --`),
    b64(`p2|2026-01-01T00:00:00.000000Z|${UUID}`),
    b64(`p1|2026-01-01T00:00:00Z|${UUID}`),
    b64(`p1|0000-01-01T00:00:00.000000Z|${UUID}`),
    b64(`p1|2026-01-01T00:00:00.000000Z|${UUID}|extra`),
  ],
  slug: [
    "Policy",
    "a_b",
    "-a",
    "a-",
    "../../etc/passwd",
    "' OR 1=1--",
    "é",
    "a".repeat(121),
    "a b",
    "a.b",
    "\u0000",
    "%2e%2e",
  ],
  site: [
    "A",
    "-a",
    "a-",
    "a".repeat(49),
    "a_b",
    "../admin",
    "' or 1=1",
    "ü",
    "a.b",
    "a b",
    "\u0000",
  ],
  hostname: [
    "localhost",
    "a..b.com",
    "-a.com",
    "a-.com",
    "a.c",
    "a.123",
    "ü.com",
    `${"a".repeat(64)}.com`,
    `${`${"a".repeat(60)}.`.repeat(5)}com`,
    "a_b.com",
    "../etc.com",
    "127.0.0.1",
    "a.com.",
    "'or'1'='1.com",
  ],
  id: [
    "cs_test_short",
    "cs_prod_abcdefghijk",
    "CS_TEST_abcdefghijk",
    `cs_test_${"a".repeat(201)}`,
    "cs_test_abc-defghijk",
    "../cs_test_abcdefghijk",
    "cs_test_abcdefghij'--",
    "cs_test_ümlautümlaut",
    "pi_test_abcdefghijk",
    "cs_live_abcdefghij\u0000",
    "cs_test_abcdefghij k",
  ],
};

/** Each route with where the fuzzed value goes. */
const ROUTES: Record<keyof typeof MALFORMED, ((v: string) => string)[]> = {
  type: [
    (v) => `/v1/public/newsroom?type=${v}`,
    (v) => `/v1/public/sites/client-news/newsroom?type=${v}`,
  ],
  topic: [
    (v) => `/v1/public/newsroom?topic=${v}`,
    (v) => `/v1/public/sites/client-news/newsroom?topic=${v}`,
  ],
  cursor: [
    (v) => `/v1/public/newsroom?cursor=${v}`,
    (v) => `/v1/public/topics/h-topic-all?cursor=${v}`,
    (v) => `/v1/public/sites/client-news/newsroom?cursor=${v}`,
    (v) => `/v1/public/sites/client-news/topics/c-topic-all?cursor=${v}`,
  ],
  slug: [
    (v) => `/v1/public/newsroom/${v}`,
    (v) => `/v1/public/topics/${v}`,
    (v) => `/v1/public/sites/client-news/newsroom/${v}`,
    (v) => `/v1/public/sites/client-news/topics/${v}`,
  ],
  site: [
    (v) => `/v1/public/sites/${v}`,
    (v) => `/v1/public/sites/${v}/newsroom`,
    (v) => `/v1/public/sites/${v}/newsroom/c-insight-published`,
    (v) => `/v1/public/sites/${v}/topics/c-topic-all`,
    (v) => `/v1/public/sites/${v}/sitemap`,
  ],
  hostname: [(v) => `/v1/public/hosts/${v}`],
  id: [(v) => `/v1/public/checkout/${v}`],
};

describe("malformed parameters answer 400, never 500", () => {
  for (const [field, values] of Object.entries(MALFORMED) as [keyof typeof MALFORMED, string[]][]) {
    test(
      `${field}: ${values.length} malformed values on every route`,
      async () => {
        expect(values.length).toBeGreaterThanOrEqual(10);
        for (const route of ROUTES[field]) {
          for (const value of values) {
            const path = route(encodeURIComponent(value));
            const answer = await world.get(path);
            expect(answer.status, path).toBe(400);
            expect(answer.body.error.code, path).toBe("invalid_parameters");
            expect(answer.body.error.type).toBe("invalid_request");
            expect(
              answer.body.error.fields.map((f: { field: string }) => f.field),
              path,
            ).toContain(field);
            expect(answer.body.error.request_id).toBe(answer.headers.get("x-request-id"));
            expect(answer.headers.get("cache-control") ?? "").not.toContain("public");
          }
        }
      },
      SLOW,
    );
  }

  test("a parameter given twice is ambiguous: 400", async () => {
    for (const path of [
      "/v1/public/newsroom?type=insight&type=video",
      "/v1/public/newsroom?topic=a&topic=b",
      "/v1/public/topics/h-topic-all?cursor=abc&cursor=def",
    ]) {
      const answer = await world.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.code).toBe("invalid_parameters");
    }
  });

  test("a well-formed cursor pointing nowhere is simply past the end", async () => {
    const cursor = encodeCursor({ at: "1999-01-01T00:00:00.000000Z", id: UUID });
    const answer = await world.get(`/v1/public/newsroom?cursor=${cursor}`);
    expect(answer.status).toBe(200);
    expect(answer.body.items).toEqual([]);
    expect(answer.body.has_more).toBe(false);
  });

  test("well-formed values of every shape are accepted", async () => {
    for (const path of [
      "/v1/public/newsroom?type=in_the_news&topic=h-topic-all",
      `/v1/public/newsroom?topic=${"a".repeat(120)}`,
      `/v1/public/sites/${"a".repeat(48)}`,
      `/v1/public/hosts/${"a".repeat(63)}.example`,
      "/v1/public/newsroom?unknown=ignored",
    ]) {
      const answer = await world.get(path);
      expect([200, 404], path).toContain(answer.status);
    }
  });
});

describe("not found", () => {
  test("a missing item or site is 404 not_found, cached 60 s", async () => {
    for (const path of [
      "/v1/public/newsroom/no-such-item",
      "/v1/public/newsroom/h-insight-draft",
      "/v1/public/topics/no-such-topic",
      "/v1/public/sites/no-such-site",
      "/v1/public/sites/disabled-news",
      "/v1/public/sites/client-news/newsroom/no-such-item",
      "/v1/public/sites/client-news/topics/no-such-topic",
      "/v1/public/sites/no-such-site/sitemap",
      "/v1/public/hosts/press.client.example",
    ]) {
      const answer = await world.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
      expect(answer.body.error.type).toBe("invalid_request");
      expect(answer.body.error.request_id).toBe(answer.headers.get("x-request-id"));
      expect(answer.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
      expect(answer.headers.get("cache-tag")).toBeTruthy();
    }
  });

  test("an unknown path under the prefix is 404, another method 405", async () => {
    const unknown = await world.get("/v1/public/nothing-here");
    expect(unknown.status).toBe(404);
    const response = await world.service.app.handle(
      new Request("http://localhost/v1/public/newsroom", { method: "POST" }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
  });
});
