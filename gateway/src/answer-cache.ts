/**
 * The one cache of public answers, in both modes: what a CDN in front of the gateway would keep,
 * kept one hop nearer, so that a warm public read costs no request to public-read (which keeps
 * no answers of its own: a miss here is read from the database). It keeps only what a shared
 * cache may (a 200 to a plain GET carrying `Cache-Tag`, `ETag` and `Cache-Control: public`,
 * without `Set-Cookie` or `Vary`), keyed by host and request target, and drops exactly what each
 * `cache.purged` event names, once: the tags public-read works out once per story or site event.
 * The answers are public-read's bytes and headers; only the request id and the service version
 * are the gateway's, as on every answer it hands on, and `Age` says how long the gateway has held
 * it. A text answer is compressed once per encoding a client asks for (gzip, br), on the first
 * such request, and kept beside it.
 *
 * An answer read before a purge and handed back after it is not kept (`begin`, `keep`). The
 * cache is on only while purges can arrive (`enable`), forgets everything when the subscription
 * may have missed some, and a time limit bounds staleness if a purge is ever late.
 */
import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import { type CachePurgedEvent, EVENT } from "@newsroom/shared/events";
import {
  type Encoding,
  encodedAnswer,
  encodingFor,
  isCompressible,
  MIN_COMPRESSED_BYTES,
  varyWithEncoding,
} from "@newsroom/shared/http/compression";
import { notModified, notModifiedResponse } from "@newsroom/shared/http/conditional";
import {
  ANSWER_ORGANIZATION_HEADER,
  answerTags,
  MAX_KEPT_TARGET_LENGTH,
} from "@newsroom/shared/http/public-answers";
import {
  contextOf,
  knownContextOf,
  REQUEST_ID_HEADER,
} from "@newsroom/shared/http/request-context";
import { withoutHeader } from "@newsroom/shared/http/service-headers";
import { targetOf } from "@newsroom/shared/http/urls";
import { log } from "@newsroom/shared/log";
import { countAnswerCacheLookup } from "@newsroom/shared/metrics";
import { ReadCache } from "@newsroom/shared/read-cache";

export interface AnswerCacheOptions {
  /** At most this many answers (default 5,000). */
  maxEntries?: number;
  /** At most about this many bytes of bodies (default 64 MiB). */
  maxBytes?: number;
  /** How long an answer is served without a purge, in ms (default 30 s). */
  ttlMs?: number;
  /** Whether it keeps answers from the start (default true); see `enable`. */
  enabled?: boolean;
}

/**
 * A public read the cache did not answer, forwarded: the key its answer may be kept under (null
 * when it may not, or the cache was off when it began), when, and the conditions taken off it.
 */
export interface Miss {
  key: string | null;
  since: number;
  conditions: [string, string][];
}

interface Kept {
  /** The answer each request gets a copy of, less the headers of one answer. */
  response: Response;
  body: Uint8Array<ArrayBuffer>;
  /** Whether it is text worth compressing, and its compressed copies, made on first request. */
  compressible: boolean;
  encoded: Partial<Record<Encoding, Response>>;
  /** Its ETag and Last-Modified, for conditional GETs. */
  etag: string;
  lastModified: string | null;
  /** When it was kept (ms since the epoch), for `Age`. */
  keptAt: number;
  /** The app and route template that first answered it: its hits count under the same. */
  service?: string;
  route?: string;
}

/** Larger answers stream through uncached (a body is read whole before it is kept). */
const MAX_KEPT_BYTES = 512 * 1024;
/** Headers that belong to one answer, never to a copy: the gateway's edge sets its own. */
const PER_ANSWER_HEADERS = [
  REQUEST_ID_HEADER,
  "x-service-version",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  ANSWER_ORGANIZATION_HEADER,
];
const CONDITIONAL_HEADERS = ["if-none-match", "if-modified-since"];

export class PublicAnswerCache {
  private readonly answers: ReadCache<Kept>;
  private enabled: boolean;

  constructor(options: AnswerCacheOptions = {}) {
    this.answers = new ReadCache({
      maxEntries: options.maxEntries ?? 5_000,
      maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
      ttlMs: options.ttlMs ?? 30_000,
    });
    this.enabled = options.enabled ?? true;
  }

  get size(): number {
    return this.answers.size;
  }

  /** Starts keeping answers: call once purges arrive. */
  enable(): void {
    this.enabled = true;
  }

  /**
   * The kept answer to this request (200, or 304 to a matching conditional GET), if any;
   * `target` is its path and query.
   */
  lookup(request: Request, target: string): Response | undefined {
    const key = this.keyOf(request, target);
    if (key === null) return undefined;
    const kept = this.answers.get(key);
    if (!kept) return undefined;
    countAnswerCacheLookup("hit");
    const context = contextOf(request);
    context.service = kept.service;
    context.route = kept.route;
    return answerFrom(kept, request);
  }

  /**
   * Call before forwarding a public read the cache did not answer; pass the result to `keep`.
   * A conditional GET goes on without its conditions, so that public-read's whole answer can be
   * kept (a 304 to one client's copy cannot); `keep` answers the conditions.
   */
  begin(request: Request): Miss {
    const key = this.keyOf(request, targetOf(request.url));
    // Counted here, not at the lookup: a read refused by its limit never reaches public-read.
    if (key !== null) countAnswerCacheLookup("miss");
    const conditions: [string, string][] = [];
    if (key !== null) {
      for (const name of CONDITIONAL_HEADERS) {
        const value = request.headers.get(name);
        if (value === null) continue;
        conditions.push([name, value]);
        request.headers.delete(name);
      }
    }
    return { key, since: this.answers.begin(), conditions };
  }

  /**
   * The answer to hand on, without the organization header: kept first when a shared cache may
   * keep it and nothing it carries was purged since `begin`; 304 when it matches the conditions
   * `begin` took off the request.
   */
  async keep(request: Request, response: Response, miss: Miss): Promise<Response> {
    for (const [name, value] of miss.conditions) request.headers.set(name, value);
    const organization = response.headers.get(ANSWER_ORGANIZATION_HEADER);
    let handedOn = withoutHeader(response, ANSWER_ORGANIZATION_HEADER);
    const key = miss.key;
    const cacheTag = response.headers.get("cache-tag");
    // An answer made in this process (the embedded mode) says no length: its body is read to
    // the limit instead.
    const length = Number(response.headers.get("content-length") ?? Number.NaN);
    const keepable =
      key !== null &&
      response.status === 200 &&
      Boolean(cacheTag) &&
      response.headers.has("etag") &&
      /(^|,)\s*public\s*(,|$)/.test(response.headers.get("cache-control") ?? "") &&
      !response.headers.has("set-cookie") &&
      !response.headers.has("vary") &&
      !(length > MAX_KEPT_BYTES);
    let body: Uint8Array<ArrayBuffer> | null = null;
    if (keepable) {
      const read = await bodyUpTo(handedOn, MAX_KEPT_BYTES);
      if (read instanceof Uint8Array) body = read;
      else handedOn = read;
    }
    if (key === null || body === null) {
      if (miss.conditions.length === 0 || !isNotModified(handedOn, request)) return handedOn;
      await handedOn.body?.cancel();
      return notModifiedResponse(handedOn.headers);
    }
    const headers = new Headers(response.headers);
    for (const name of PER_ANSWER_HEADERS) headers.delete(name);
    const compressible =
      body.byteLength >= MIN_COMPRESSED_BYTES && isCompressible(headers.get("content-type"));
    if (compressible) headers.set("vary", varyWithEncoding(null));
    const answeredBy = knownContextOf(request);
    const kept: Kept = {
      response: new Response(body, { status: 200, headers }),
      body,
      compressible,
      encoded: {},
      etag: headers.get("etag") ?? "",
      lastModified: headers.get("last-modified"),
      keptAt: Date.now(),
      service: answeredBy?.service,
      route: answeredBy?.route,
    };
    this.answers.set(
      key,
      kept,
      // Room for the compressed copies too (a text answer compresses to a fifth or less).
      {
        tags: answerTags(cacheTag, organization),
        bytes: body.byteLength * (compressible ? 1.5 : 1) + 512,
      },
      miss.since,
    );
    return answerFrom(kept, request);
  }

  /** Drops the answers carrying any of `tags`. Returns how many. */
  purge(tags: readonly string[]): number {
    return this.answers.invalidate(tags);
  }

  clear(): void {
    this.answers.clear();
  }

  /** The cache key of a request a shared cache may answer, or null. */
  private keyOf(request: Request, target: string): string | null {
    if (!this.enabled || request.method !== "GET" || request.headers.has("range")) return null;
    if (target.length > MAX_KEPT_TARGET_LENGTH) return null;
    return `${request.headers.get("host") ?? ""} ${target}`;
  }
}

/**
 * The whole body of an answer when it is at most `limit` bytes; else the answer to hand on
 * instead, its body still whole (the part read first, then the rest as it comes).
 */
async function bodyUpTo(
  response: Response,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | Response> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return new Uint8Array(Bun.concatArrayBuffers(chunks));
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      const rest = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
        },
        async pull(controller) {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(rest, response);
    }
  }
}

/** Whether a 200 the client already has (its ETag or Last-Modified) is current. */
function isNotModified(response: Response, request: Request): boolean {
  const etag = response.headers.get("etag");
  return (
    response.status === 200 &&
    etag !== null &&
    notModified(request, etag, response.headers.get("last-modified"))
  );
}

/**
 * A kept answer to one request, compressed as it asks: 304 when the client's copy is current,
 * else a copy of it.
 */
function answerFrom(kept: Kept, request: Request): Response {
  const encoding = kept.compressible ? encodingFor(request.headers.get("accept-encoding")) : null;
  const answer = encoding ? encodedCopy(kept, encoding) : kept.response;
  if (notModified(request, kept.etag, kept.lastModified)) {
    return notModifiedResponse(answer.headers);
  }
  // A clone costs half of a new answer built from the kept headers and body.
  const response = answer.clone();
  // As a shared cache says (RFC 9111 section 5.1): how long it has held the answer.
  response.headers.set("age", String(Math.floor((Date.now() - kept.keptAt) / 1000)));
  return response;
}

/** The kept answer in `encoding`, compressed on its first request and kept beside it. */
function encodedCopy(kept: Kept, encoding: Encoding): Response {
  let encoded = kept.encoded[encoding];
  if (!encoded) {
    encoded = encodedAnswer(kept.response, kept.body, encoding, true);
    kept.encoded[encoding] = encoded;
  }
  return encoded;
}

/**
 * Every `cache.purged` event, on every gateway replica (a broadcast subscription: each replica
 * keeps its own cache). When the subscription had to be made again, purges may have been missed
 * meanwhile: the cache forgets everything.
 */
export function subscribeAnswerPurges(
  bus: EventBus,
  cache: PublicAnswerCache,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (event.type !== EVENT.cachePurged) return;
      const { tags } = (event as CachePurgedEvent).data;
      const dropped = cache.purge(tags);
      log.debug("gateway answer cache purged", { event_id: event.id, tags: tags.length, dropped });
    },
    {
      durable: "gateway-answer-cache",
      broadcast: true,
      types: [EVENT.cachePurged],
      onResubscribe: () => cache.clear(),
    },
  );
}
