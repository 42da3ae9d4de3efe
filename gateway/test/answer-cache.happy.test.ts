import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { loadConfig } from "@newsroom/shared/config";
import { EVENT } from "@newsroom/shared/events";
import * as compression from "@newsroom/shared/http/compression";
import { edge } from "@newsroom/shared/http/edge";
import { organizationTag } from "@newsroom/shared/http/public-answers";
import { answerCacheLookups } from "@newsroom/shared/metrics";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { eventually } from "@newsroom/shared/testing/eventually";
import { SERVICE_VERSION } from "@newsroom/shared/version";
import { PublicAnswerCache, subscribeAnswerPurges } from "../src/answer-cache.ts";
import { createGateway } from "../src/app.ts";

/**
 * The distributed gateway's cache of public answers, in front of a stand-in public-read that
 * answers as the real one does over HTTP (caching headers, `Content-Length`, the organization
 * header) and counts what reaches it: what is kept and served again, what never is, and what a
 * purge drops.
 */
const ORG_A = crypto.randomUUID();
const ORG_B = crypto.randomUUID();
const PUBLIC_CACHE_CONTROL =
  "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800";
const LAST_MODIFIED = "Tue, 03 Mar 2026 10:00:00 GMT";
const MAX_KEPT_BYTES = 512 * 1024;
const encoder = new TextEncoder();

interface Shape {
  status?: number;
  tags?: string | null;
  cacheControl?: string;
  organization?: string | null;
  lastModified?: string;
  extra?: Record<string, string>;
  /** A body of this many bytes instead of the JSON one. */
  bytes?: number;
  /** A body streamed with no Content-Length. */
  streamed?: boolean;
}

/** What the stand-in answers on each path (a query or host changes nothing). */
const SHAPES: Record<string, Shape> = {
  "/v1/public/newsroom": { tags: "newsroom-index,sitemap", lastModified: LAST_MODIFIED },
  "/v1/public/newsroom/x": { tags: "content:x,newsroom-index" },
  "/v1/public/newsroom/y": { tags: "content:y,newsroom-index" },
  "/v1/public/sites/b/newsroom": { tags: "site:b,site:b:newsroom-index", organization: ORG_B },
  "/v1/public/sites/nowhere/newsroom": { tags: "site:nowhere", organization: null },
  "/v1/public/missing": {
    status: 404,
    tags: "content:missing",
    cacheControl: "public, max-age=60, s-maxage=60",
  },
  "/v1/public/untagged": { tags: null },
  "/v1/public/private": { cacheControl: "private, max-age=60" },
  "/v1/public/no-store": { cacheControl: "no-store" },
  "/v1/public/cookie": { extra: { "set-cookie": "seen=1; Path=/" } },
  "/v1/public/varies": { extra: { vary: "accept-language" } },
  "/v1/public/large": { bytes: MAX_KEPT_BYTES + 1 },
  "/v1/public/text": { bytes: 8 * 1024 },
  "/v1/public/just-fits": { bytes: MAX_KEPT_BYTES },
  "/v1/public/streamed": { streamed: true },
  "/v1/public/streamed-large": { streamed: true, bytes: MAX_KEPT_BYTES + 1 },
};

/** What the stand-in was asked: method, host and target. */
interface Reached {
  method: string;
  host: string | null;
  target: string;
  /** The conditional headers it was sent. */
  conditions: (string | null)[];
}

/** A stand-in service; only public-read tells the gateway whose answer it is. */
function standIn(tellsOrganization = true) {
  const reached: Reached[] = [];
  /** Times each host and target was answered, so that every answer's body and ETag are new. */
  const served = new Map<string, number>();
  /** Targets whose next answer repeats the previous one (a replica that kept its copy). */
  const repeatOnce = new Set<string>();
  /** Held answers: the stand-in waits on this before answering, when set. */
  let hold: Promise<void> | null = null;

  const upstream = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const target = url.pathname + url.search;
    reached.push({
      method: request.method,
      host: request.headers.get("host"),
      target,
      conditions: [request.headers.get("if-none-match"), request.headers.get("if-modified-since")],
    });
    if (hold) await hold;
    const shape = SHAPES[url.pathname] ?? { tags: `content:${url.pathname}` };
    const key = `${request.headers.get("host")} ${target}`;
    let n = (served.get(key) ?? 0) + 1;
    if (repeatOnce.delete(target)) n -= 1;
    served.set(key, n);
    const body = shape.bytes
      ? new Uint8Array(shape.bytes).fill(n % 256)
      : encoder.encode(JSON.stringify({ target, host: request.headers.get("host"), answer: n }));
    const headers = new Headers({
      "cache-control": shape.cacheControl ?? PUBLIC_CACHE_CONTROL,
      etag: `"${url.pathname.replaceAll("/", "-")}-${n}"`,
      "content-type": "application/json; charset=utf-8",
      date: new Date().toUTCString(),
      "x-service-version": "public-read",
      ...shape.extra,
    });
    if (shape.tags !== null) headers.set("cache-tag", shape.tags ?? `content:${url.pathname}`);
    if (shape.lastModified) headers.set("last-modified", shape.lastModified);
    const organization = shape.organization === undefined ? ORG_A : shape.organization;
    if (organization && tellsOrganization) headers.set("x-answer-organization", organization);
    if (shape.streamed) {
      // In pieces, as a body too large to keep reaches the gateway over a socket.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < body.byteLength; at += 64 * 1024) {
            controller.enqueue(body.slice(at, at + 64 * 1024));
          }
          controller.close();
        },
      });
      return new Response(stream, { status: shape.status ?? 200, headers });
    }
    // An answer fetched over HTTP carries its length; a Response made here does not by itself.
    headers.set("content-length", String(body.byteLength));
    return new Response(body, { status: shape.status ?? 200, headers });
  };
  return {
    upstream,
    reached,
    repeatOnce,
    /** How many requests for this target (any method, host) reached the stand-in. */
    count: (target: string) => reached.filter((r) => r.target === target).length,
    holdAnswers(): () => void {
      let release = () => {};
      hold = new Promise<void>((resolve) => {
        release = () => {
          hold = null;
          resolve();
        };
      });
      return release;
    },
  };
}

interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
  text: string;
}

const caches: PublicAnswerCache[] = [];

afterEach(() => {
  for (const cache of caches.splice(0)) cache.clear();
});

function gatewayWith(options: { cache?: PublicAnswerCache | null; perMinute?: number } = {}) {
  const cache =
    options.cache === null
      ? undefined
      : (options.cache ?? new PublicAnswerCache({ ttlMs: 60_000 }));
  if (cache) caches.push(cache);
  const service = standIn();
  const other = standIn(false);
  const gateway = createGateway({
    config: loadConfig({ PUBLIC_RATE_LIMIT_PER_MINUTE: String(options.perMinute ?? 1_000_000) }),
    mode: "distributed",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: {
      "public-read": service.upstream,
      "client-api": other.upstream,
      forms: other.upstream,
    },
    readinessChecks: [],
    answerCache: cache,
  });
  const handle = edge((request) => gateway.handle(request), { trustedProxies: "" });
  const send = async (
    target: string,
    headers: Record<string, string> = {},
    method = "GET",
  ): Promise<Answer> => {
    const response = await handle(
      new Request(`http://localhost${target}`, {
        method,
        headers: { host: "news.example", ...headers },
      }),
    );
    const body = new Uint8Array(await response.arrayBuffer());
    // Whatever the answer, the organization header stays between public-read and the gateway.
    expect(response.headers.get("x-answer-organization")).toBeNull();
    return {
      status: response.status,
      headers: response.headers,
      body,
      text: new TextDecoder().decode(body),
    };
  };
  return { cache: cache!, service, other, send };
}

/** The answer cache's lookups so far with this outcome (hit, miss). */
async function lookups(outcome: "hit" | "miss"): Promise<number> {
  const { values } = await answerCacheLookups.get();
  return values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}

/** The headers of an answer but those each answer has its own of (a kept one's `Age` too). */
function lasting(headers: Headers): [string, string][] {
  const kept: [string, string][] = [];
  headers.forEach((value, name) => {
    if (name !== "x-request-id" && name !== "date" && name !== "age") kept.push([name, value]);
  });
  return kept.sort(([a], [b]) => a.localeCompare(b));
}

describe("kept and served again", () => {
  test("a second identical GET is the first answer, byte for byte, without reaching public-read", async () => {
    const { send, service } = gatewayWith();
    const first = await send("/v1/public/newsroom");
    const second = await send("/v1/public/newsroom");
    const third = await send("/v1/public/newsroom");
    expect(service.count("/v1/public/newsroom")).toBe(1);

    expect(first.status).toBe(200);
    expect(first.text).toContain('"answer":1');
    // public-read's headers, the organization header and its own version and date aside.
    expect(Object.fromEntries(lasting(first.headers))).toEqual({
      "cache-control": PUBLIC_CACHE_CONTROL,
      "cache-tag": "newsroom-index,sitemap",
      "content-length": String(first.body.byteLength),
      "content-type": "application/json; charset=utf-8",
      etag: '"-v1-public-newsroom-1"',
      "last-modified": LAST_MODIFIED,
      "x-content-type-options": "nosniff",
      "x-service-version": SERVICE_VERSION,
    });
    for (const again of [first, second, third]) {
      // Held by the gateway for less than a second.
      expect(again.headers.get("age")).toBe("0");
    }
    for (const again of [second, third]) {
      expect(again.status).toBe(first.status);
      expect(again.body).toEqual(first.body);
      expect(lasting(again.headers)).toEqual(lasting(first.headers));
    }
    const ids = [first, second, third].map((answer) => answer.headers.get("x-request-id"));
    expect(ids.every((id) => /^req_/.test(id ?? ""))).toBe(true);
    expect(new Set(ids).size).toBe(3);
  });

  test("only reads that reach public-read count against the client's public read limit", async () => {
    const { send, service } = gatewayWith({ perMinute: 3 });
    const statuses: number[] = [];
    // The first is a miss (counted), the next five are kept answers (not counted).
    for (let i = 0; i < 6; i++) statuses.push((await send("/v1/public/newsroom")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(service.count("/v1/public/newsroom")).toBe(1);
    // Two more misses reach the limit; the next miss is refused before public-read.
    expect((await send("/v1/public/newsroom/x")).status).toBe(200);
    expect((await send("/v1/public/newsroom/y")).status).toBe(200);
    const missesBefore = await lookups("miss");
    const refused = await send("/v1/public/newsroom/z");
    expect(refused.status).toBe(429);
    // Refused before public-read: not a miss of the cache either.
    expect(await lookups("miss")).toBe(missesBefore);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(service.count("/v1/public/newsroom/z")).toBe(0);
    // What is kept is still answered, to GET and HEAD alike.
    expect((await send("/v1/public/newsroom/x")).status).toBe(200);
    expect((await send("/v1/public/newsroom/x", {}, "HEAD")).status).toBe(200);
  });

  test("without an answer cache every GET reaches public-read, and the organization header is still removed", async () => {
    const { send, service } = gatewayWith({ cache: null });
    const first = await send("/v1/public/newsroom");
    await send("/v1/public/newsroom");
    expect(service.count("/v1/public/newsroom")).toBe(2);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-tag")).toBe("newsroom-index,sitemap");
  });

  test("a different host or a different query is a different answer", async () => {
    const { send, service } = gatewayWith();
    const targets = [
      "/v1/public/newsroom",
      "/v1/public/newsroom?topic=a",
      "/v1/public/newsroom?topic=b",
    ];
    for (const round of [1, 2]) {
      for (const target of targets) {
        for (const host of ["news.example", "other.example"]) {
          const answer = await send(target, { host });
          expect(JSON.parse(answer.text)).toEqual({ target, host, answer: 1 });
        }
      }
      expect({ round, reached: service.reached.length }).toEqual({ round, reached: 6 });
    }
  });
});

describe("conditional GETs answered from the cache", () => {
  test("an answer too large to keep still answers the conditions its client sent", async () => {
    const { send, service, cache } = gatewayWith();
    const first = await send("/v1/public/large");
    const etag = first.headers.get("etag")!;
    // The next answer is the same one, as public-read gives while nothing changed.
    service.repeatOnce.add("/v1/public/large");
    const revalidated = await send("/v1/public/large", { "if-none-match": etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.byteLength).toBe(0);
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(cache.size).toBe(0);
    // A copy that is not current gets the whole answer.
    const changed = await send("/v1/public/large", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.body.byteLength).toBe(MAX_KEPT_BYTES + 1);
  });

  test("on a miss the whole answer is asked for and kept, and the conditions answered here", async () => {
    const { send, service } = gatewayWith();
    const current = '"-v1-public-newsroom-1"';
    const revalidated = await send("/v1/public/newsroom", { "if-none-match": current });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(current);
    expect(service.reached.map((r) => r.conditions)).toEqual([[null, null]]);
    const plain = await send("/v1/public/newsroom");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("etag")).toBe(current);
    expect(service.count("/v1/public/newsroom")).toBe(1);
    // Another address's copy of another answer: the whole answer, also asked for whole.
    const stale = await send("/v1/public/topics/x", { "if-modified-since": LAST_MODIFIED });
    expect(stale.status).toBe(200);
    expect(service.reached.at(-1)?.conditions).toEqual([null, null]);
  });

  test("If-None-Match: 304 with the caching headers when it matches, the answer when not", async () => {
    const { send, service } = gatewayWith();
    const kept = await send("/v1/public/newsroom");
    const etag = kept.headers.get("etag")!;
    for (const given of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const answer = await send("/v1/public/newsroom", { "if-none-match": given });
      expect({ given, status: answer.status, body: answer.text }).toEqual({
        given,
        status: 304,
        body: "",
      });
      expect(Object.fromEntries(lasting(answer.headers))).toEqual({
        "cache-control": PUBLIC_CACHE_CONTROL,
        "cache-tag": "newsroom-index,sitemap",
        etag,
        "last-modified": LAST_MODIFIED,
        "x-service-version": SERVICE_VERSION,
      });
    }
    const stale = await send("/v1/public/newsroom", { "if-none-match": '"-v1-public-newsroom-0"' });
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual(kept.body);
    // If-None-Match decides when present, whatever If-Modified-Since says.
    const both = await send("/v1/public/newsroom", {
      "if-none-match": '"other"',
      "if-modified-since": LAST_MODIFIED,
    });
    expect(both.status).toBe(200);
    expect(service.count("/v1/public/newsroom")).toBe(1);
  });

  test("If-Modified-Since: 304 when the kept answer is no newer, the answer when it is or when it has no Last-Modified", async () => {
    const { send, service } = gatewayWith();
    await send("/v1/public/newsroom");
    await send("/v1/public/newsroom/x");
    for (const since of [LAST_MODIFIED, "Wed, 04 Mar 2026 10:00:00 GMT"]) {
      const answer = await send("/v1/public/newsroom", { "if-modified-since": since });
      expect({ since, status: answer.status, body: answer.text }).toEqual({
        since,
        status: 304,
        body: "",
      });
      expect(answer.headers.get("last-modified")).toBe(LAST_MODIFIED);
      expect(answer.headers.get("etag")).toBe('"-v1-public-newsroom-1"');
    }
    const older = await send("/v1/public/newsroom", {
      "if-modified-since": "Mon, 02 Mar 2026 10:00:00 GMT",
    });
    expect(older.status).toBe(200);
    expect(older.text).toContain('"answer":1');
    const unknown = await send("/v1/public/newsroom/x", { "if-modified-since": LAST_MODIFIED });
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get("last-modified")).toBeNull();
    expect(service.reached.length).toBe(2);
  });
});

describe("never kept", () => {
  const notKept: [string, string][] = [
    ["a 404", "/v1/public/missing"],
    ["an answer without Cache-Tag", "/v1/public/untagged"],
    ["a private answer", "/v1/public/private"],
    ["a no-store answer", "/v1/public/no-store"],
    ["an answer setting a cookie", "/v1/public/cookie"],
    ["an answer over 512 KiB", "/v1/public/large"],
    ["an answer that varies by a request header", "/v1/public/varies"],
    ["a streamed answer of unknown length over 512 KiB", "/v1/public/streamed-large"],
  ];
  for (const [what, target] of notKept) {
    test(`${what}: each request reaches public-read`, async () => {
      const { send, service, cache } = gatewayWith();
      const first = await send(target);
      const second = await send(target);
      expect(service.count(target)).toBe(2);
      expect(cache.size).toBe(0);
      expect(second.status).toBe(first.status);
      expect(second.text).not.toBe(first.text);
    });
  }

  test("a streamed answer of unknown length over 512 KiB reaches its client whole", async () => {
    const { send } = gatewayWith();
    const answer = await send("/v1/public/streamed-large");
    expect(answer.status).toBe(200);
    expect(answer.body.byteLength).toBe(MAX_KEPT_BYTES + 1);
    expect(answer.body.every((byte) => byte === 1)).toBe(true);
  });

  test("a streamed answer of unknown length within 512 KiB (one made in-process) is kept", async () => {
    const { send, service } = gatewayWith();
    const first = await send("/v1/public/streamed");
    const second = await send("/v1/public/streamed");
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("age")).toBe("0");
    expect(service.count("/v1/public/streamed")).toBe(1);
  });

  test("an answer of exactly 512 KiB is kept", async () => {
    const { send, service } = gatewayWith();
    const first = await send("/v1/public/just-fits");
    const second = await send("/v1/public/just-fits");
    expect(first.body.byteLength).toBe(MAX_KEPT_BYTES);
    expect(second.body).toEqual(first.body);
    expect(service.count("/v1/public/just-fits")).toBe(1);
  });

  test("HEAD is answered as GET: from the entry a GET made, headers and length, no body", async () => {
    const { send, service } = gatewayWith();
    const get = await send("/v1/public/newsroom");
    const head = await send("/v1/public/newsroom", {}, "HEAD");
    expect(service.count("/v1/public/newsroom")).toBe(1);
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    expect(head.headers.get("content-length")).toBe(String(get.body.byteLength));
    for (const name of ["etag", "cache-control", "cache-tag", "content-type"]) {
      expect(head.headers.get(name)).toBe(get.headers.get(name));
    }
    // A HEAD first reads the answer as GET, and the GET after it is the kept one.
    await send("/v1/public/newsroom/x", {}, "HEAD");
    await send("/v1/public/newsroom/x");
    expect(service.reached.filter((r) => r.target === "/v1/public/newsroom/x")).toHaveLength(1);
    expect(service.reached.map((r) => r.method)).toEqual(["GET", "GET"]);
  });

  test("a request with Range is neither kept nor answered from the cache", async () => {
    const { send, service } = gatewayWith();
    await send("/v1/public/newsroom/x", { range: "bytes=0-9" });
    await send("/v1/public/newsroom/x", { range: "bytes=0-9" });
    expect(service.count("/v1/public/newsroom/x")).toBe(2);
    await send("/v1/public/newsroom/x");
    await send("/v1/public/newsroom/x");
    await send("/v1/public/newsroom/x", { range: "bytes=0-9" });
    expect(service.count("/v1/public/newsroom/x")).toBe(4);
  });

  test("the client API's and the forms' answers never are, whatever their headers", async () => {
    const { send, service, other, cache } = gatewayWith();
    for (const target of ["/v1/stories", "/v1/public/contact"]) {
      const first = await send(target);
      const second = await send(target);
      expect(first.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL);
      expect(second.text).not.toBe(first.text);
      expect({ target, reached: other.count(target) }).toEqual({ target, reached: 2 });
    }
    expect(service.reached).toEqual([]);
    expect(cache.size).toBe(0);
  });
});

describe("purges", () => {
  const everything = [
    "/v1/public/newsroom",
    "/v1/public/newsroom/x",
    "/v1/public/newsroom/y",
    "/v1/public/sites/b/newsroom",
    "/v1/public/sites/nowhere/newsroom",
  ];

  /** Warms every target, then reports which of them a second round sent to public-read. */
  async function refetchedAfter(
    gateway: ReturnType<typeof gatewayWith>,
    purge: () => Promise<void> | void,
  ): Promise<string[]> {
    for (const target of everything) await gateway.send(target);
    expect(gateway.service.reached.length).toBe(everything.length);
    await purge();
    const before = gateway.service.reached.length;
    for (const target of everything) {
      const answer = await gateway.send(target);
      expect(answer.status).toBe(200);
    }
    return gateway.service.reached.slice(before).map((r) => r.target);
  }

  test("a purge drops exactly the answers carrying one of its tags", async () => {
    const gateway = gatewayWith();
    const refetched = await refetchedAfter(gateway, () => {
      expect(gateway.cache.purge(["content:x", "content:nothing-kept"])).toBe(1);
    });
    expect(refetched).toEqual(["/v1/public/newsroom/x"]);
    expect((await gateway.send("/v1/public/newsroom/x")).text).toContain('"answer":2');
  });

  test("a tag many answers carry drops them all", async () => {
    const gateway = gatewayWith();
    const refetched = await refetchedAfter(gateway, () => {
      gateway.cache.purge(["newsroom-index"]);
    });
    expect(refetched).toEqual([
      "/v1/public/newsroom",
      "/v1/public/newsroom/x",
      "/v1/public/newsroom/y",
    ]);
  });

  test("an organization's tag drops its answers and no other organization's", async () => {
    const gateway = gatewayWith();
    const refetched = await refetchedAfter(gateway, () => {
      gateway.cache.purge([organizationTag(ORG_A)]);
    });
    expect(refetched).toEqual([
      "/v1/public/newsroom",
      "/v1/public/newsroom/x",
      "/v1/public/newsroom/y",
    ]);

    const other = gatewayWith();
    expect(
      await refetchedAfter(other, () => {
        other.cache.purge([organizationTag(ORG_B)]);
      }),
    ).toEqual(["/v1/public/sites/b/newsroom"]);

    const none = gatewayWith();
    expect(
      await refetchedAfter(none, () => {
        none.cache.purge([organizationTag(null)]);
      }),
    ).toEqual(["/v1/public/sites/nowhere/newsroom"]);
  });

  test("a cache.purged event on the bus drops what it names", async () => {
    const bus = new MemoryBus();
    const gateway = gatewayWith();
    const subscription = await subscribeAnswerPurges(bus, gateway.cache);
    try {
      const refetched = await refetchedAfter(gateway, async () => {
        await bus.publish({
          id: `evt_${crypto.randomUUID()}.purge`,
          type: EVENT.cachePurged,
          created_at: new Date().toISOString(),
          data: { organization_id: ORG_A, tags: ["content:y", organizationTag(ORG_B)] },
        });
        await eventually(() => gateway.cache.size === everything.length - 2, {
          message: "the purge to be applied",
        });
      });
      expect(refetched).toEqual(["/v1/public/newsroom/y", "/v1/public/sites/b/newsroom"]);
    } finally {
      await subscription.stop();
      await bus.close();
    }
  });

  test("an answer fetched while the cache was off is not kept once it is on", async () => {
    const off = new PublicAnswerCache({ enabled: false });
    const { send, service, cache } = gatewayWith({ cache: off });
    const release = service.holdAnswers();
    const pending = send("/v1/public/newsroom");
    await eventually(() => service.reached.length === 1, { message: "the request forwarded" });
    // Purges are heard from now on; one published before this could not have been.
    cache.enable();
    release();
    expect((await pending).status).toBe(200);
    expect(cache.size).toBe(0);
    await send("/v1/public/newsroom");
    await send("/v1/public/newsroom");
    expect(service.count("/v1/public/newsroom")).toBe(2);
  });

  test("an answer being fetched when a purge of its tags arrives is handed on but not kept", async () => {
    const { send, service, cache } = gatewayWith();
    const release = service.holdAnswers();
    const pending = send("/v1/public/newsroom/x");
    const unrelated = send("/v1/public/newsroom/y");
    await eventually(() => service.reached.length === 2, {
      message: "both requests to be forwarded",
    });
    cache.purge(["content:x"]);
    release();
    const [answer, other] = await Promise.all([pending, unrelated]);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"answer":1');
    expect(other.status).toBe(200);

    await send("/v1/public/newsroom/x");
    await send("/v1/public/newsroom/y");
    expect(service.count("/v1/public/newsroom/x")).toBe(2);
    expect(service.count("/v1/public/newsroom/y")).toBe(1);
  });
});

describe("compressed once per encoding", () => {
  test("a text answer in br or gzip as asked, each encoding made on its first request", async () => {
    const encodings = spyOn(compression, "encodedAnswer");
    try {
      const { send, service } = gatewayWith();
      const plain = await send("/v1/public/text");
      expect(plain.headers.get("content-encoding")).toBeNull();
      // Also the identity answer says that the answer depends on Accept-Encoding.
      expect(plain.headers.get("vary")).toBe("Accept-Encoding");
      const etag = plain.headers.get("etag")!;
      for (let round = 0; round < 3; round += 1) {
        const br = await send("/v1/public/text", { "accept-encoding": "gzip, deflate, br" });
        expect(br.headers.get("content-encoding")).toBe("br");
        expect(br.headers.get("etag")).toBe(etag.replace(/"$/, '-br"'));
        expect(br.headers.get("vary")).toBe("Accept-Encoding");
        expect(br.headers.get("age")).not.toBeNull();
        expect(br.body.byteLength).toBeLessThan(plain.body.byteLength / 4);
        expect(Buffer.compare(brotliDecompressSync(br.body), plain.body)).toBe(0);
        const gzip = await send("/v1/public/text", { "accept-encoding": "gzip;q=1, br;q=0" });
        expect(gzip.headers.get("content-encoding")).toBe("gzip");
        expect(gzip.headers.get("etag")).toBe(etag.replace(/"$/, '-gz"'));
        expect(Buffer.compare(gunzipSync(gzip.body), plain.body)).toBe(0);
      }
      expect(service.count("/v1/public/text")).toBe(1);
      expect(encodings).toHaveBeenCalledTimes(2);
      const head = await send("/v1/public/text", { "accept-encoding": "br" }, "HEAD");
      expect(head.headers.get("content-encoding")).toBe("br");
      const br = await send("/v1/public/text", { "accept-encoding": "br" });
      expect(head.headers.get("content-length")).toBe(String(br.body.byteLength));
      expect(encodings).toHaveBeenCalledTimes(2);
    } finally {
      encodings.mockRestore();
    }
  });

  test("If-None-Match matches the compressed and the plain form of the ETag", async () => {
    const { send } = gatewayWith();
    const plain = await send("/v1/public/text");
    const etag = plain.headers.get("etag")!;
    for (const given of [etag, etag.replace(/"$/, '-gz"'), etag.replace(/"$/, '-br"')]) {
      const again = await send("/v1/public/text", {
        "accept-encoding": "gzip",
        "if-none-match": given,
      });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag.replace(/"$/, '-gz"'));
      expect(again.headers.get("vary")).toBe("Accept-Encoding");
    }
  });

  test("small and binary answers go as they are", async () => {
    const { send } = gatewayWith();
    const small = await send("/v1/public/newsroom/x", { "accept-encoding": "gzip, br" });
    expect(small.body.byteLength).toBeLessThan(1024);
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(small.headers.get("vary")).toBeNull();
  });
});
