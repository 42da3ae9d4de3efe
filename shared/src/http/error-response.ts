import { jsonResponse } from "../content-types.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { ApiError, type FieldError, temporarilyUnavailable } from "../errors.ts";
import { log } from "../log.ts";
import { explanationOf } from "../parameter-schemas.ts";
import { knownContextOf, REQUEST_ID_HEADER, requestIdOf } from "./request-context.ts";
import { pathOf } from "./urls.ts";

export function errorResponse(error: ApiError, requestId: string): Response {
  return jsonResponse(error.toBody(requestId), {
    status: error.status,
    headers: { ...error.headers, [REQUEST_ID_HEADER]: requestId },
  });
}

/** What Elysia throws for the failures it finds itself (no route, a bad body, ...). */
export type ElysiaError = Error & { code?: unknown; status?: number };

function validationFields(error: ElysiaError): FieldError[] {
  const all =
    (error as { all?: { path: string; message: string; schema?: unknown; value?: unknown }[] })
      .all ?? [];
  const fields = new Map<string, FieldError>();
  for (const entry of all) {
    const field = entry.path.replace(/^\//, "").replace(/\//g, ".") || "body";
    if (fields.has(field)) continue;
    const message = explanationOf(entry.schema, entry.value) ?? entry.message;
    fields.set(field, { field, reason: "invalid", message });
  }
  return [...fields.values()];
}

/**
 * Every bad query parameter at once, in the order the route's schema names them: a repeated one
 * as `repeated` (whatever its last value), the others as the validator found them.
 */
function withRepeated(fields: FieldError[], request: Request): FieldError[] {
  const query = knownContextOf(request)?.query;
  if (!query || query.repeated.length === 0) return fields;
  const repeated = new Set(query.repeated.map((field) => field.field));
  const place = (field: FieldError) => {
    const at = query.names.indexOf(field.field);
    return at === -1 ? query.names.length : at;
  };
  return [...query.repeated, ...fields.filter((field) => !repeated.has(field.field))].sort(
    (a, b) => place(a) - place(b),
  );
}

/** Turns whatever was thrown into an ApiError; unknown errors become 500 api_error. */
export function toApiError(error: unknown, request: Request, allowed?: string[]): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as ElysiaError;
  switch (e?.code) {
    case "NOT_FOUND":
      if (allowed && allowed.length > 0) {
        return new ApiError("method_not_allowed", undefined, {
          headers: { allow: allowed.join(", ") },
        });
      }
      return new ApiError("not_found", "No route matches this path.");
    case "VALIDATION":
      return (e as { type?: string }).type === "body"
        ? new ApiError("validation_failed", undefined, { fields: validationFields(e) })
        : new ApiError("invalid_parameters", undefined, {
            fields: withRepeated(validationFields(e), request),
          });
    case "PARSE":
      return new ApiError("invalid_json", "The body could not be parsed.");
    case "INVALID_COOKIE_SIGNATURE":
      return new ApiError("invalid_parameters");
  }
  // A client gone before the answer (its body cut off, say) is not our failure; the edge counts
  // it (http_requests_aborted_total) and nobody reads this answer.
  if (request.signal.aborted) return new ApiError("api_error", "The client closed the connection.");
  if (isDatabaseUnavailable(error)) {
    log.warn("database unavailable", {
      request_id: requestIdOf(request),
      ...describeError(error),
    });
    return temporarilyUnavailable(knownContextOf(request)?.service);
  }
  log.error("unhandled error", {
    request_id: requestIdOf(request),
    path: pathOf(request.url),
    ...describeError(e),
  });
  return new ApiError("api_error");
}

/**
 * What the logs say of an unexpected error: its class, its code (a PostgreSQL SQLSTATE, a system
 * code) and its message, never a query or its parameters (addresses, redirect URLs, tokens).
 * drizzle wraps the driver's error in one whose message is the failed query and its parameters:
 * the driver's error, its cause, is told instead. The stack keeps only its frames.
 */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error_class: typeof error };
  let told: Error = error;
  for (let depth = 0; depth < 5 && told.cause instanceof Error; depth++) told = told.cause;
  const code = (told as { code?: unknown }).code;
  return {
    error_class: error.constructor.name,
    ...(told === error ? {} : { cause_class: told.constructor.name }),
    ...(typeof code === "string" || typeof code === "number" ? { error_code: String(code) } : {}),
    error: withoutQuery(told.message),
    stack: error.stack
      ?.split("\n")
      .filter((line) => /^\s+at /.test(line))
      .join("\n"),
  };
}

/** A message cut where a query's text or its parameters begin. */
function withoutQuery(message: string): string {
  const start = message.search(
    /Failed query:|\bparams:|\b(?:select|insert into|update|delete from) /i,
  );
  return start === -1 ? message : `${message.slice(0, start)}[query removed]`;
}
