import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { MailDeliveryError } from "@newsroom/shared/mailer";
import { Elysia } from "elysia";
import { digestPage } from "../confirmations/newsletter-pages.ts";
import { pageResponse } from "../confirmations/pages.ts";
import { confirmTokenOf } from "../confirmations/tokens.ts";
import { digestConfirmOperation, formOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { houseNewsroomUrl } from "../newsletter/origins.ts";
import { readBody } from "../request/body.ts";
import {
  acceptsJson,
  enforceClientLimit,
  guarded,
  json,
  NO_STORE,
  requireMailer,
} from "../request/respond.ts";
import { submitForm } from "../submission/pipeline.ts";
import { DigestSubscribeIn } from "./model.ts";
import { type ConfirmationOutcome, confirmDigest, requestDigestConfirmation } from "./service.ts";

export function digestRoutes(deps: FormsDeps) {
  return new Elysia()
    .post(
      "/v1/public/newsletter/subscribe",
      ({ request }) =>
        submitForm(deps, request, {
          route: "digest",
          schema: DigestSubscribeIn,
          team: false,
          humanCheck: false,
          deliver: (input, mailer) => requestDigestConfirmation(deps, mailer, input.email),
        }),
      {
        parse: "none",
        detail: formOperation({
          operationId: "subscribeToDigest",
          summary: "Subscribe to the weekly digest (double opt-in)",
          description:
            "The same 202 whether the address is new, pending, subscribed or throttled (one confirmation an hour, two a day).",
          schema: DigestSubscribeIn,
          tags: ["Newsletters"],
        }),
      },
    )
    .post(
      "/v1/public/newsletter/subscribe/confirm",
      ({ request }) =>
        guarded(request, { ...NO_STORE }, async () => {
          const mailer = requireMailer(deps);
          await enforceClientLimit(deps, request, "confirm");
          const body = await readBody(request);
          const token = confirmTokenOf(body.fields);
          if (token === undefined) {
            throw validationFailed([{ field: "t", reason: "required", message: "is required" }]);
          }
          let outcome: ConfirmationOutcome;
          try {
            outcome = token === null ? "expired" : await confirmDigest(deps, mailer, token);
          } catch (error) {
            if (error instanceof MailDeliveryError) throw new ApiError("delivery_failed");
            throw error;
          }
          const status = outcome === "confirmed" ? 200 : 410;
          // A browser's form post (the confirmation page's button) gets a page, not JSON.
          if (body.kind === "form" && !acceptsJson(request)) {
            return pageResponse(digestPage(outcome, houseNewsroomUrl(deps.config)), status);
          }
          return json({ status: outcome }, status);
        }),
      { parse: "none", detail: digestConfirmOperation },
    );
}
