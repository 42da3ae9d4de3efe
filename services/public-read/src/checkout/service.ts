import Stripe from "stripe";
import type { CheckoutSummaryOut } from "./model.ts";

export type CheckoutLookup =
  | { ok: true; summary: CheckoutSummaryOut }
  | { ok: false; reason: "not_found" | "unavailable"; detail?: string };

export interface CheckoutReader {
  summary(sessionId: string): Promise<CheckoutLookup>;
}

/**
 * Reads checkout sessions through the Stripe SDK. Null when STRIPE_SECRET_KEY is not set
 * (the route then answers 503). STRIPE_API_BASE points the SDK at another server (tests).
 */
export function checkoutReader(config: {
  STRIPE_SECRET_KEY?: string;
  STRIPE_API_BASE?: string;
}): CheckoutReader | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : null;
  const stripe = new Stripe(config.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 1,
    timeout: 8_000,
    telemetry: false,
    ...(base
      ? {
          protocol: base.protocol === "http:" ? ("http" as const) : ("https" as const),
          host: base.hostname,
          port: base.port || (base.protocol === "http:" ? 80 : 443),
        }
      : {}),
  });
  return {
    async summary(sessionId) {
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.retrieve(sessionId, {
          expand: ["line_items.data.price.product"],
        });
      } catch (error) {
        if (error instanceof Stripe.errors.StripeError && error.statusCode === 404) {
          return { ok: false, reason: "not_found" };
        }
        return {
          ok: false,
          reason: "unavailable",
          detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        };
      }
      return { ok: true, summary: summarize(session) };
    },
  };
}

const STATUSES = ["open", "complete", "expired"] as const;

/**
 * The summary fields only. The plan is the first line item's price (its lookup key or id, and
 * its product's name), else the session metadata `plan_id` / `plan_name`.
 */
export function summarize(session: Stripe.Checkout.Session): CheckoutSummaryOut {
  const price = session.line_items?.data[0]?.price ?? null;
  const product = price && typeof price.product === "object" ? price.product : null;
  const productName = product && !("deleted" in product && product.deleted) ? product.name : null;
  const metadata = session.metadata ?? {};
  let plan: CheckoutSummaryOut["plan"] = null;
  if (price) {
    plan = {
      id: price.lookup_key ?? price.id,
      name: productName ?? price.nickname ?? session.line_items?.data[0]?.description ?? price.id,
    };
  } else if (metadata.plan_id) {
    plan = { id: metadata.plan_id, name: metadata.plan_name ?? metadata.plan_id };
  }
  return {
    status: STATUSES.find((status) => status === session.status) ?? "open",
    payment_status: session.payment_status,
    plan,
    interval: price?.recurring?.interval ?? metadata.interval ?? null,
    amount_total: session.amount_total ?? null,
    currency: session.currency ?? null,
  };
}
