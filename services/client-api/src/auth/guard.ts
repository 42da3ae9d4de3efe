import type { KeyScope } from "@newsroom/shared/api-keys";
import { isDatabaseUnavailable } from "@newsroom/shared/db/unavailable";
import { ApiError, temporarilyUnavailable } from "@newsroom/shared/errors";
import { describeError } from "@newsroom/shared/http/error-response";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { log } from "@newsroom/shared/log";
import { presentedKey } from "@newsroom/shared/presented-key";
import type { ClientApiDeps } from "../deps.ts";
import { type Caller, verifyApiKey } from "./service.ts";

const RETRY_AFTER = { "retry-after": "60" };

export function apiUnavailable(): ApiError {
  return new ApiError("api_unavailable", undefined, { headers: RETRY_AFTER });
}

/**
 * The HTTP side of key authentication: turns a failed check into its error (401 with
 * `WWW-Authenticate: Bearer`, 403 naming the scope) and a database that cannot answer now into
 * 503 api_unavailable. Never logs the request URL: a feed URL may hold a key.
 */
export async function requireKey(
  deps: ClientApiDeps,
  request: Request,
  scope: KeyScope,
  options: { allowQueryKey?: boolean } = {},
): Promise<Caller> {
  if (!deps.db) throw apiUnavailable();
  const credential = presentedKey(request, options.allowQueryKey ?? false);
  let check: Awaited<ReturnType<typeof verifyApiKey>>;
  try {
    check = await verifyApiKey(
      { findKey: deps.findKey, serviceEnv: deps.serviceEnv, keyUsage: deps.keyUsage },
      credential,
      scope,
    );
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    log.error("key lookup failed", {
      request_id: requestIdOf(request),
      ...describeError(error),
    });
    throw temporarilyUnavailable("client-api");
  }
  if (check.ok) return check.caller;
  if (check.code === "insufficient_scope") {
    throw new ApiError("insufficient_scope", `This route needs the scope \`${check.scope}\`.`, {
      headers: {
        "www-authenticate": `Bearer error="insufficient_scope", scope="${check.scope}"`,
      },
    });
  }
  throw new ApiError(check.code, check.message, { headers: { "www-authenticate": "Bearer" } });
}
