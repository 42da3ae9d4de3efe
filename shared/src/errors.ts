/**
 * The one error type of the service. Every error body is the spec's Error record:
 * `{ error: { type, code, message, request_id, fields? } }`.
 */

export type ErrorType =
  | "invalid_request"
  | "authentication_error"
  | "permission_error"
  | "rate_limited"
  | "unavailable"
  | "api_error";

/** Each code with its HTTP status and error type. The spec's codes first, then our own. */
export const ERROR_CODES = {
  invalid_parameters: { status: 400, type: "invalid_request" },
  missing_api_key: { status: 401, type: "authentication_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  wrong_environment: { status: 401, type: "authentication_error" },
  insufficient_scope: { status: 403, type: "permission_error" },
  origin_not_allowed: { status: 403, type: "permission_error" },
  not_found: { status: 404, type: "invalid_request" },
  unsupported_body: { status: 415, type: "invalid_request" },
  validation_failed: { status: 422, type: "invalid_request" },
  too_many_requests: { status: 429, type: "rate_limited" },
  delivery_failed: { status: 502, type: "unavailable" },
  forms_unavailable: { status: 503, type: "unavailable" },
  api_unavailable: { status: 503, type: "unavailable" },
  content_unavailable: { status: 503, type: "unavailable" },
  api_error: { status: 500, type: "api_error" },
  // Codes the spec leaves to the implementation.
  method_not_allowed: { status: 405, type: "invalid_request" },
  invalid_transition: { status: 409, type: "invalid_request" },
  limit_reached: { status: 409, type: "invalid_request" },
  conflict: { status: 409, type: "invalid_request" },
  body_too_large: { status: 413, type: "invalid_request" },
  invalid_json: { status: 400, type: "invalid_request" },
  unauthorized: { status: 401, type: "authentication_error" },
  forbidden: { status: 403, type: "permission_error" },
} as const satisfies Record<string, { status: number; type: ErrorType }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One offending input field: its name and a machine-readable reason. */
export interface FieldError {
  field: string;
  reason: string;
  message?: string;
}

export interface ErrorBody {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    request_id: string;
    fields?: FieldError[];
  };
}

const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  invalid_parameters: "One or more parameters are invalid.",
  missing_api_key: "No API key was given. Send it as `Authorization: Bearer <key>`.",
  invalid_api_key: "The API key is malformed, unknown, expired or revoked.",
  wrong_environment: "The API key belongs to the other environment.",
  insufficient_scope: "The API key lacks the scope this route needs.",
  origin_not_allowed: "This origin may not subscribe to the newsletter.",
  not_found: "Nothing was found here.",
  unsupported_body: "The body must be JSON, urlencoded or multipart form data.",
  validation_failed: "The submission has invalid fields.",
  too_many_requests: "Too many requests. Wait for Retry-After seconds.",
  delivery_failed: "The email provider refused the message. Retry with the same submission_id.",
  forms_unavailable: "Forms are not configured in this environment.",
  api_unavailable: "The client API is not configured in this environment.",
  content_unavailable: "Content is temporarily unavailable.",
  api_error: "The service failed. Quote the request_id when you report it.",
  method_not_allowed: "This method is not allowed on this path.",
  invalid_transition: "The story cannot make this transition from its current status.",
  limit_reached: "A limit was reached.",
  conflict: "The record conflicts with an existing one.",
  body_too_large: "The request body is too large.",
  invalid_json: "The body is not valid JSON.",
  unauthorized: "The admin token is missing or wrong.",
  forbidden: "You may not do this here.",
};

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { fields?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? DEFAULT_MESSAGES[code]);
    this.name = "ApiError";
    this.code = code;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  get type(): ErrorType {
    return ERROR_CODES[this.code].type;
  }

  toBody(requestId: string): ErrorBody {
    const body: ErrorBody = {
      error: { type: this.type, code: this.code, message: this.message, request_id: requestId },
    };
    if (this.fields) body.error.fields = this.fields;
    return body;
  }
}

/** The 503 each service's callers expect when it, or its database, cannot answer. */
export const UNAVAILABLE_CODES = {
  "client-api": "api_unavailable",
  forms: "forms_unavailable",
  "public-read": "content_unavailable",
  workspace: "api_unavailable",
} as const satisfies Record<string, ErrorCode>;

/** 503 with `Retry-After: 60` for a service that cannot answer now (its database is down). */
export function temporarilyUnavailable(service: string | undefined): ApiError {
  const code = UNAVAILABLE_CODES[service as keyof typeof UNAVAILABLE_CODES] ?? "api_unavailable";
  return new ApiError(code, "The service is temporarily unavailable. Retry after Retry-After.", {
    headers: { "retry-after": "60" },
  });
}

export function invalidParameters(fields: FieldError[], message?: string): ApiError {
  return new ApiError("invalid_parameters", message, { fields });
}

export function validationFailed(fields: FieldError[]): ApiError {
  return new ApiError("validation_failed", undefined, { fields });
}

export function notFound(message?: string): ApiError {
  return new ApiError("not_found", message);
}
