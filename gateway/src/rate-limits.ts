import { hashKey } from "@newsroom/shared/api-keys";
import { ApiError } from "@newsroom/shared/errors";
import { clientIpOf } from "@newsroom/shared/http";
import { checkLimit, type RateLimitStore } from "@newsroom/shared/rate-limit";

export const PER_KEY_LIMIT = 300;
export const PER_IP_LIMIT = 600;
export const WINDOW_SECONDS = 60;
export const RATE_LIMIT_POLICY = `${PER_KEY_LIMIT};w=${WINDOW_SECONDS}`;

const FEED_PATHS = ["/v1/feed.json", "/v1/feed.xml"];

/**
 * The key a client presented, not validated here: on the feeds `?key=` first (the client API
 * authenticates with it when given), otherwise the bearer header.
 */
function presentedKey(request: Request): string | null {
  const url = new URL(request.url);
  const fromQuery = FEED_PATHS.includes(url.pathname) ? url.searchParams.get("key") : null;
  if (fromQuery) return fromQuery;
  const header = request.headers.get("authorization");
  return header?.startsWith("Bearer ") ? header.slice(7).trim() || null : null;
}

/**
 * The client API's limits: 600 a minute per client address, 300 per 60 s per presented key.
 * Throws 429 too_many_requests with `Retry-After: 60` when over either.
 */
export async function enforceClientApiLimits(
  store: RateLimitStore,
  request: Request,
): Promise<void> {
  const byIp = await checkLimit(store, `ip:${clientIpOf(request)}`, PER_IP_LIMIT, WINDOW_SECONDS);
  let allowed = byIp.allowed;
  const key = presentedKey(request);
  if (allowed && key) {
    const byKey = await checkLimit(store, `key:${hashKey(key)}`, PER_KEY_LIMIT, WINDOW_SECONDS);
    allowed = byKey.allowed;
  }
  if (!allowed) {
    throw new ApiError("too_many_requests", undefined, {
      headers: {
        "retry-after": String(WINDOW_SECONDS),
        "ratelimit-policy": RATE_LIMIT_POLICY,
        "cache-control": "private, no-store",
      },
    });
  }
}
