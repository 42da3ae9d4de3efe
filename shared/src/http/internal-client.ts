import {
  ApiError,
  ERROR_CODES,
  type ErrorCode,
  type FieldError,
  temporarilyUnavailable,
} from "../errors.ts";
import { log } from "../log.ts";
import { injectTraceHeaders, tracingOn } from "../tracing/index.ts";
import { REQUEST_ID_HEADER } from "./request-context.ts";

/**
 * How one service reaches another's internal API: the other's base URL (distributed mode) or
 * its app's `handle` in this process (embedded mode). Both take the same Request.
 */
export type ServiceCall = (request: Request) => Response | Promise<Response>;

export interface InternalCallOptions {
  /** A JSON body. */
  body?: unknown;
  /** The request id of the request that made this call, carried on for the logs. */
  requestId?: string;
}

/** Where an internal request is built before it goes out; only its path and query travel. */
const INTERNAL_ORIGIN = "http://internal.invalid";

/**
 * A client of another service's internal API (`/internal/v1/...`, behind ADMIN_TOKEN). Commands
 * go to the service that owns the data. Its Error records come back as the same ApiError (code,
 * message, fields), so a caller's page or route shows them as its own; a service that cannot be
 * reached, or answers without an Error record, is 503 with Retry-After.
 */
export class InternalClient {
  private readonly send: ServiceCall;

  constructor(
    /** The called service's name, for the logs and its 503 code. */
    readonly service: string,
    target: string | ServiceCall,
    private readonly token: string,
    /** How long an answer over HTTP may take (a test event waits for its receiver, 10 s). */
    timeoutMs = 30_000,
  ) {
    this.send = typeof target === "string" ? overHttp(target, timeoutMs) : target;
  }

  /** Sends one request; the answer's JSON, or undefined for 204. Throws the answer's ApiError. */
  async call<T>(method: string, path: string, options: InternalCallOptions = {}): Promise<T> {
    const headers = new Headers({
      authorization: `Bearer ${this.token}`,
      accept: "application/json",
    });
    if (options.requestId) headers.set(REQUEST_ID_HEADER, options.requestId);
    if (tracingOn()) injectTraceHeaders(headers);
    const hasBody = options.body !== undefined;
    if (hasBody) headers.set("content-type", "application/json");
    const request = new Request(INTERNAL_ORIGIN + path, {
      method,
      headers,
      body: hasBody ? JSON.stringify(options.body) : undefined,
    });
    let response: Response;
    try {
      response = await this.send(request);
    } catch (error) {
      log.error("internal call failed", {
        service: this.service,
        path,
        request_id: options.requestId,
        error: error instanceof Error ? error.message : String(error),
      });
      throw temporarilyUnavailable(this.service);
    }
    if (response.status === 204) return undefined as T;
    const body = (await response.json().catch(() => undefined)) as unknown;
    if (response.ok && body !== undefined) return body as T;
    throw this.failureOf(response, body, path);
  }

  /** The callee's Error record as the same ApiError; anything else as 503. */
  private failureOf(response: Response, body: unknown, path: string): ApiError {
    const error = (body as { error?: { code?: string; message?: string; fields?: FieldError[] } })
      ?.error;
    const code = error?.code;
    if (code && code in ERROR_CODES && response.status < 500) {
      const retryAfter = response.headers.get("retry-after");
      return new ApiError(code as ErrorCode, error.message, {
        fields: error.fields,
        headers: retryAfter ? { "retry-after": retryAfter } : undefined,
      });
    }
    log.error("internal call answered with a failure", {
      service: this.service,
      path,
      status: response.status,
      code,
    });
    if (code && code in ERROR_CODES && ERROR_CODES[code as ErrorCode].type === "unavailable") {
      return new ApiError(code as ErrorCode, error?.message, {
        headers: { "retry-after": response.headers.get("retry-after") ?? "60" },
      });
    }
    return temporarilyUnavailable(this.service);
  }
}

/** Distributed mode: the request's path and query sent to the service's base URL. */
function overHttp(baseUrl: string, timeoutMs: number): ServiceCall {
  const base = baseUrl.replace(/\/+$/, "");
  return (request) => {
    const url = new URL(request.url);
    return fetch(base + url.pathname + url.search, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  };
}
