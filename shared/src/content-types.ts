/**
 * The one spelling of a text answer's `Content-Type`: the media type, then `; charset=utf-8`
 * (as the pages, scripts and public JSON answers say it), for JSON, feeds and documents alike.
 */
export function withCharset(mediaType: string): string {
  return `${mediaType}; charset=utf-8`;
}

export const JSON_CONTENT_TYPE = withCharset("application/json");

/** `Response.json` with the one spelling of JSON's `Content-Type` (Bun's own has no space). */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", JSON_CONTENT_TYPE);
  return new Response(JSON.stringify(body), { ...init, headers });
}
