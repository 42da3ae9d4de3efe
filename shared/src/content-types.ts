/**
 * The one spelling of a text answer's `Content-Type`: the media type, then `; charset=utf-8`
 * (as the pages, scripts and public JSON answers say it), for JSON, feeds and documents alike.
 */
export function withCharset(mediaType: string): string {
  return `${mediaType}; charset=utf-8`;
}

export const JSON_CONTENT_TYPE = withCharset("application/json");
