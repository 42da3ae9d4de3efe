/**
 * Compression of text answers (gzip and br) for clients that ask with `Accept-Encoding`. Each
 * encoded answer names its encoding in its ETag (`"abc-br"`, `"abc-gz"`), and a conditional
 * request matches either form (`conditional.ts`). The gateway compresses: a kept answer once per
 * encoding (`answer-cache.ts`), any other at the edge (`edge.ts`), cheaply.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

export type Encoding = "br" | "gzip";

/** Smaller answers go as they are: a few bytes saved cost more than they save. */
export const MIN_COMPRESSED_BYTES = 1024;

/** An answer larger than this is not compressed on the fly (it is read whole first). */
export const MAX_COMPRESSED_BYTES = 8 * 1024 * 1024;

const TEXT_TYPE =
  /^(?:text\/(?!event-stream)|application\/(?:[\w.-]+\+)?(?:json|xml|javascript)|image\/svg\+xml)/i;

/** Whether answers of this content type are text worth compressing. */
export function isCompressible(contentType: string | null): boolean {
  return contentType !== null && TEXT_TYPE.test(contentType);
}

/** The encoding to send for this `Accept-Encoding`: br, else gzip, else none (identity). */
export function encodingFor(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  let gzip = false;
  let any = false;
  for (const part of acceptEncoding.split(",")) {
    const [token = "", ...parameters] = part.split(";");
    const name = token.trim().toLowerCase();
    const refused = parameters.some((p) => /^\s*q\s*=\s*0(?:\.0{0,3})?\s*$/i.test(p));
    if (refused) continue;
    if (name === "br") return "br";
    if (name === "gzip" || name === "x-gzip") gzip = true;
    if (name === "*") any = true;
  }
  return gzip ? "gzip" : any ? "br" : null;
}

/**
 * The body encoded: `thorough` for an answer kept and sent many times (compressed once), else
 * quick enough for an answer made for one request.
 */
export function encode(
  body: Uint8Array,
  encoding: Encoding,
  thorough: boolean,
): Uint8Array<ArrayBuffer> {
  // zlib's buffers are ArrayBuffer-backed.
  if (encoding === "gzip") {
    return gzipSync(body, { level: thorough ? 9 : 6 }) as Uint8Array<ArrayBuffer>;
  }
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: thorough ? 9 : 4,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  }) as Uint8Array<ArrayBuffer>;
}

const SUFFIX: Record<Encoding, string> = { br: "-br", gzip: "-gz" };

/** The ETag of an encoded answer: its encoding inside the quotes (`"abc"` gives `"abc-gz"`). */
export function encodedEtag(etag: string, encoding: Encoding): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}${SUFFIX[encoding]}"` : etag;
}

/** An entity tag without an encoding's suffix: what a conditional request is compared as. */
export function withoutEncoding(etag: string): string {
  return etag.replace(/-(?:br|gz)"$/, '"');
}

/**
 * The encoded copy of an answer whose body is `body`: `Content-Encoding`, its length, its
 * ETag, and `Vary: Accept-Encoding` (also on the identity answer, by the caller).
 */
export function encodedAnswer(
  response: Response,
  body: Uint8Array,
  encoding: Encoding,
  thorough: boolean,
): Response {
  const encoded = encode(body, encoding, thorough);
  const headers = new Headers(response.headers);
  headers.set("content-encoding", encoding);
  headers.set("content-length", String(encoded.byteLength));
  headers.set("vary", varyWithEncoding(headers.get("vary")));
  const etag = headers.get("etag");
  if (etag) headers.set("etag", encodedEtag(etag, encoding));
  return new Response(encoded, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** A `Vary` value that names Accept-Encoding. */
export function varyWithEncoding(vary: string | null): string {
  if (!vary) return "Accept-Encoding";
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) return vary;
  return `${vary}, Accept-Encoding`;
}

/**
 * The encoding an answer to one request is to be compressed with at the edge, or null: asked
 * for, a text answer with a body, not compressed already, not marked `no-transform`, of a size
 * worth it (when it says its size; an answer made in-process does not).
 */
export function edgeEncodingOf(request: Request, response: Response): Encoding | null {
  if (response.body === null || response.status === 206) return null;
  const headers = response.headers;
  if (headers.has("content-encoding") || !isCompressible(headers.get("content-type"))) {
    return null;
  }
  if (/no-transform/i.test(headers.get("cache-control") ?? "")) return null;
  const length = Number(headers.get("content-length") ?? Number.NaN);
  if (length < MIN_COMPRESSED_BYTES || length > MAX_COMPRESSED_BYTES) return null;
  return encodingFor(request.headers.get("accept-encoding"));
}

/** The answer compressed with `encoding` at the edge, or as it was when it proves small. */
export async function compressedAtEdge(response: Response, encoding: Encoding): Promise<Response> {
  const body = new Uint8Array(await response.arrayBuffer());
  if (body.byteLength < MIN_COMPRESSED_BYTES) return new Response(body, response);
  return encodedAnswer(response, body, encoding, false);
}
