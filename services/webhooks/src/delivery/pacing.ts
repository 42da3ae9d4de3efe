import { log } from "@newsroom/shared/log";
import type { RateLimitStore } from "@newsroom/shared/rate-limit";
import type { DeliveryRow, EndpointRow } from "./store.ts";

/**
 * The window an endpoint's `rate_limit_per_second` counts in: one second, and a margin for the
 * time between a place being taken and its request reaching the receiver (the attempt's opening,
 * the connection). A receiver counting by the seconds of its own clock then sees no more than
 * the rate while that time varies by up to the margin; the rate is held to at most
 * `limit` requests in any 1.1 s.
 */
export const PACING_WINDOW_MS = 1_100;

/** How long paced deliveries wait when the shared store cannot say (Redis down): never sent over. */
export const PACING_UNKNOWN_WAIT_MS = 1_000;

export interface PacedBatch {
  /** Deliveries that may be sent now: their endpoint has no rate, or a place in its window. */
  go: DeliveryRow[];
  /** Deliveries over their endpoint's rate, with how long until a place frees. */
  waiting: { delivery: DeliveryRow; waitMs: number }[];
}

/**
 * Splits claimed deliveries into those that may be sent now and those that wait for their
 * endpoint's rate. Each delivery of an endpoint with `rate_limit_per_second` takes a place in
 * its rolling one-second window in the shared store (Redis across replicas, memory in one
 * process), so the replicas together never start more requests to it in any second than its
 * rate. Deliveries of endpoints without a rate never reach the store. When the store fails, the
 * paced deliveries wait rather than risk going over.
 */
export async function paceDeliveries(
  store: RateLimitStore,
  deliveries: DeliveryRow[],
  endpoints: Map<string, EndpointRow>,
): Promise<PacedBatch> {
  const rateOf = (delivery: DeliveryRow) => {
    const endpoint = endpoints.get(delivery.endpointId);
    return endpoint?.status === "enabled" ? endpoint.rateLimitPerSecond : null;
  };
  const paced = deliveries.filter((delivery) => rateOf(delivery) !== null);
  if (paced.length === 0) return { go: deliveries, waiting: [] };
  let waits: number[];
  try {
    waits = await store.reserve(
      paced.map((delivery) => ({
        key: `webhook-pace:${delivery.endpointId}`,
        limit: rateOf(delivery)!,
        windowMs: PACING_WINDOW_MS,
      })),
    );
  } catch (error) {
    log.warn("webhook pacing store unavailable; paced deliveries wait", {
      store: store.kind,
      error: error instanceof Error ? error.message : String(error),
    });
    waits = paced.map(() => PACING_UNKNOWN_WAIT_MS);
  }
  const waitOf = new Map(paced.map((delivery, i) => [delivery.id, waits[i] ?? 0]));
  return {
    go: deliveries.filter((delivery) => (waitOf.get(delivery.id) ?? 0) === 0),
    waiting: paced.flatMap((delivery) => {
      const waitMs = waitOf.get(delivery.id)!;
      return waitMs > 0 ? [{ delivery, waitMs }] : [];
    }),
  };
}
