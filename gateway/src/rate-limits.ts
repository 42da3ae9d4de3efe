import { addressLimitKey } from "@newsroom/shared/address-limit-key";
import { hashKey } from "@newsroom/shared/api-keys";
import { ApiError } from "@newsroom/shared/errors";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import { pathOf } from "@newsroom/shared/http/urls";
import { presentedKey, QUERY_KEY_PATHS } from "@newsroom/shared/presented-key";
import {
  type CounterHit,
  checkLimit,
  checkLimits,
  type RateLimitStore,
} from "@newsroom/shared/rate-limit";

export const PER_KEY_LIMIT = 300;
export const PER_IP_LIMIT = 600;
export const WINDOW_SECONDS = 60;
export const RATE_LIMIT_POLICY = `${PER_KEY_LIMIT};w=${WINDOW_SECONDS}`;

/**
 * The client API's limits: 600 a minute per client address (an IPv6 client per /64), 300 per
 * 60 s per presented key.
 * Throws 429 too_many_requests with `Retry-After: 60` when over either.
 */
export async function enforceClientApiLimits(
  store: RateLimitStore,
  request: Request,
): Promise<void> {
  const address = addressLimitKey(clientIpOf(request));
  const counters: CounterHit[] = [
    { key: `ip:${address}`, limit: PER_IP_LIMIT, windowSeconds: WINDOW_SECONDS },
  ];
  // The key the client API will authenticate with, read by the same parser; counted only when
  // the address is within its limit, and in the same round trip.
  const presented = presentedKey(request, QUERY_KEY_PATHS.includes(pathOf(request.url)));
  if (presented.ok) {
    counters.push({
      key: `key:${hashKey(presented.key)}`,
      limit: PER_KEY_LIMIT,
      windowSeconds: WINDOW_SECONDS,
    });
  }
  const { allowed } = await checkLimits(store, counters);
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

/** Checkout summaries per client address a minute: each one unknown to us costs a Stripe call. */
export const CHECKOUT_LIMIT = 30;
const CHECKOUT_PATH = "/v1/public/checkout/";

/**
 * The public reads' limits (GET and HEAD under /v1/public): `perMinute` per client address
 * (PUBLIC_RATE_LIMIT_PER_MINUTE), so random slugs and forged cursors cannot flood public-read's
 * database reads; and the checkout summary, on top, 30 a minute per address. An IPv6 client counts per
 * /64. Throws 429 too_many_requests with `Retry-After: 60` when over either.
 *
 * Only reads that go on to public-read are counted: a read the gateway's answer cache answers
 * never touches the database. The read limit is counted per gateway replica, in memory: it only
 * guards public-read's database reads, and a shared counter would cost every public read a
 * Redis round trip. The checkout limit, which guards the Stripe quota, is counted in the shared
 * store.
 */
export async function enforcePublicLimits(
  stores: { perReplica: RateLimitStore; shared: RateLimitStore },
  request: Request,
  perMinute: number,
): Promise<void> {
  if (request.method !== "GET" && request.method !== "HEAD") return;
  const address = addressLimitKey(clientIpOf(request));
  let { allowed } = await checkLimit(
    stores.perReplica,
    `public:${address}`,
    perMinute,
    WINDOW_SECONDS,
  );
  if (allowed && pathOf(request.url).startsWith(CHECKOUT_PATH)) {
    const byCheckout = await checkLimit(
      stores.shared,
      `checkout:${address}`,
      CHECKOUT_LIMIT,
      WINDOW_SECONDS,
    );
    allowed = byCheckout.allowed;
  }
  if (!allowed) {
    throw new ApiError("too_many_requests", undefined, {
      headers: { "retry-after": String(WINDOW_SECONDS), "cache-control": "no-store" },
    });
  }
}
