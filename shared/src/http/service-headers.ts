import { SERVICE_VERSION } from "../version.ts";
import { REQUEST_ID_HEADER } from "./request-context.ts";

/**
 * Sets the two headers every response carries, replacing whatever was there; a JSON answer
 * (errors included) also says `X-Content-Type-Options: nosniff`, so that no browser reads it
 * as anything else.
 */
export function withServiceHeaders(response: Response, requestId: string): Response {
  const out = withHeader(response, REQUEST_ID_HEADER, requestId);
  out.headers.set("x-service-version", SERVICE_VERSION);
  if (out.headers.get("content-type")?.includes("json")) {
    out.headers.set("x-content-type-options", "nosniff");
  }
  return out;
}

/**
 * Sets a header on an answer in place. Only an answer whose headers are immutable (a
 * `Response.error()`; fetch answers in runtimes that follow the Fetch standard there, unlike
 * Bun) is copied first: its body stream
 * is handed on, never read.
 */
export function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const out = new Response(response.body, response);
    out.headers.set(name, value);
    return out;
  }
}

/** Removes a header from an answer in place, copying only an answer whose headers are immutable. */
export function withoutHeader(response: Response, name: string): Response {
  if (!response.headers.has(name)) return response;
  try {
    response.headers.delete(name);
    return response;
  } catch {
    const out = new Response(response.body, response);
    out.headers.delete(name);
    return out;
  }
}
