import { ApiError } from "../errors.ts";
import { newRequestId } from "../ids.ts";
import { log } from "../log.ts";
import { describeError, errorResponse } from "./error-response.ts";
import { withServiceHeaders } from "./service-headers.ts";

/**
 * Options for every Bun server of the service: never Bun's development error page (it shows the
 * exception, the working directory and source lines); an error that escapes the handler is a
 * plain 500 Error record with our headers.
 */
export const SERVER_SAFETY = {
  development: false,
  error(error: Error): Response {
    const requestId = newRequestId();
    log.error("unhandled error", { request_id: requestId, ...describeError(error) });
    return withServiceHeaders(errorResponse(new ApiError("api_error"), requestId), requestId);
  },
} as const;

/** The options of every Bun server of the service: SERVER_SAFETY, and how long idle connections stay. */
export function serverOptions(config: { HTTP_IDLE_TIMEOUT_SECONDS: number }) {
  return { ...SERVER_SAFETY, idleTimeout: config.HTTP_IDLE_TIMEOUT_SECONDS };
}

/** What Bun itself accepts; above it Bun answers 413 on its own, without our headers. */
export const SERVER_BODY_LIMIT = 16 * 1024 * 1024;
