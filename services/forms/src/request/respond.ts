import { addressLimitKey } from "@newsroom/shared/address-limit-key";
import { jsonResponse } from "@newsroom/shared/content-types";
import { ApiError } from "@newsroom/shared/errors";
import { toApiError } from "@newsroom/shared/http/error-response";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import type { Mailer } from "@newsroom/shared/mailer";
import { checkLimit } from "@newsroom/shared/rate-limit";
import type { FormsDeps } from "../deps.ts";

export const NO_STORE = { "cache-control": "no-store" } as const;

/**
 * Runs a route and adds `headers` (which the route may fill as it goes, such as CORS) to its
 * answer, error or not. A failure goes on as an ApiError that carries them, answered like every
 * other by the kit's one onError.
 */
export async function guarded(
  request: Request,
  headers: Record<string, string>,
  run: () => Promise<Response>,
): Promise<Response> {
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    const failure = toApiError(error, request);
    // The error's own headers win over the route's, as on an answer.
    const own = new Set(Object.keys(failure.headers).map((name) => name.toLowerCase()));
    const added = Object.entries(headers).filter(([name]) => !own.has(name.toLowerCase()));
    throw new ApiError(failure.code, failure.message, {
      fields: failure.fields,
      headers: { ...failure.headers, ...Object.fromEntries(added) },
    });
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}

export function json(body: unknown, status: number, headers: Record<string, string> = {}) {
  return jsonResponse(body, { status, headers: { ...NO_STORE, ...headers } });
}

/** Whether the client asked for JSON (fetch, API clients) rather than a page. */
export function acceptsJson(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes("application/json");
}

/** 503 forms_unavailable unless email (and, for team emails, the team address) is configured. */
export function requireMailer(deps: FormsDeps, options: { team?: boolean } = {}): Mailer {
  const mailer = deps.mailer;
  if (!mailer || (options.team && !mailer.teamAddress)) throw new ApiError("forms_unavailable");
  return mailer;
}

/**
 * Per-client limits: form submissions, organization subscribes, token confirmations. In
 * development FORMS_CLIENT_LIMIT_PER_MINUTE replaces the first two.
 */
export const LIMITS = {
  forms: { limit: 5, windowSeconds: 60 },
  newsletter: { limit: 5, windowSeconds: 60 },
  confirm: { limit: 20, windowSeconds: 60 },
} as const;

export async function enforceClientLimit(
  deps: FormsDeps,
  request: Request,
  bucket: keyof typeof LIMITS,
): Promise<void> {
  const { windowSeconds } = LIMITS[bucket];
  const limit =
    bucket === "confirm"
      ? LIMITS.confirm.limit
      : (deps.config.FORMS_CLIENT_LIMIT_PER_MINUTE ?? LIMITS[bucket].limit);
  const decision = await checkLimit(
    deps.rateLimits,
    `forms:${bucket}:${addressLimitKey(clientIpOf(request))}`,
    limit,
    windowSeconds,
  );
  if (!decision.allowed) {
    throw new ApiError("too_many_requests", undefined, {
      headers: { "retry-after": String(decision.resetSeconds), ...NO_STORE },
    });
  }
}
