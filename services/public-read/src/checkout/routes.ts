import { jsonResponse } from "@newsroom/shared/content-types";
import { ApiError } from "@newsroom/shared/errors";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { log } from "@newsroom/shared/log";
import { errorAnswer, operation } from "@newsroom/shared/openapi/operation";
import { Elysia } from "elysia";
import { CheckoutParams, CheckoutSummaryOut } from "./model.ts";
import type { CheckoutReader } from "./service.ts";

const NO_STORE = { "cache-control": "no-store" };

/**
 * GET /v1/public/checkout/{id}: the summary of a checkout session. The session id is
 * unguessable; the answer lets no one act on the account, and no one else caches it. Every read
 * that misses the summary cache costs a Stripe call: the gateway allows 30 a minute per address.
 */
export function checkoutRoutes(reader: CheckoutReader | null) {
  return new Elysia({ name: "public-read:checkout" }).get(
    "/v1/public/checkout/:id",
    async ({ request, params }) => {
      if (!reader) {
        throw new ApiError(
          "content_unavailable",
          "Checkout is not configured in this environment.",
          {
            headers: { ...NO_STORE, "retry-after": "60" },
          },
        );
      }
      const result = await reader.summary(params.id);
      if (result.ok) return jsonResponse(result.summary, { headers: NO_STORE });
      if (result.reason === "not_found") {
        throw new ApiError("not_found", "No such checkout session.", { headers: NO_STORE });
      }
      log.warn("checkout session read failed", {
        request_id: requestIdOf(request),
        error: result.detail,
      });
      throw new ApiError("content_unavailable", "Checkout is temporarily unavailable.", {
        headers: { ...NO_STORE, "retry-after": "60" },
      });
    },
    {
      params: CheckoutParams,
      detail: operation({
        operationId: "getCheckoutSummary",
        summary: "Checkout summary",
        description:
          "The session id is unguessable; the answer lets no one act on the account. At most 30 a minute per client address.",
        tags: ["Checkout"],
        status: "Live",
        responses: {
          200: {
            description: "The summary.",
            schema: CheckoutSummaryOut,
            headers: ["Cache-Control"],
          },
          400: errorAnswer("A malformed session id (`invalid_parameters`)."),
          404: errorAnswer("Unknown session (`not_found`).", ["Cache-Control"]),
          429: errorAnswer(
            "Over 30 checkout summaries a minute from one client address, an IPv6 client counted by its /64, or over its public read limit (`too_many_requests`).",
            ["Retry-After", "Cache-Control"],
          ),
          503: errorAnswer("Checkout is not configured here, or the provider failed.", [
            "Retry-After",
            "Cache-Control",
          ]),
        },
      }),
    },
  );
}
