import { ApiError } from "@newsroom/shared/errors";
import { MailDeliveryError } from "@newsroom/shared/mailer";
import { Elysia } from "elysia";
import { confirmSubscription, requestConfirmation } from "../confirmations/opt-in.ts";
import { type PageContent, pageResponse } from "../confirmations/pages.ts";
import { findConfirmation } from "../confirmations/store.ts";
import { confirmationTokenOf, hashToken, TOKEN_SHAPE } from "../confirmations/tokens.ts";
import {
  statusConfirmPageOperation,
  statusConfirmPostOperation,
  statusSubscribeOperation,
} from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { bodyKindOf } from "../request/body.ts";
import { failWithPages } from "../request/error-pages.ts";
import {
  acceptsJson,
  enforceClientLimit,
  guarded,
  json,
  NO_STORE,
  requireMailer,
} from "../request/respond.ts";
import { accepted, submitForm } from "../submission/pipeline.ts";
import { unsubscribeRoutes } from "../unsubscribe/routes.ts";
import {
  STATUS_BRAND,
  STATUS_PATHS,
  STATUS_UNSUBSCRIBE_PAGES,
  statusOptIn,
  statusPageUrl,
} from "./list.ts";
import { StatusSubscribeIn } from "./model.ts";

/**
 * The status page's email subscription: subscribe (JSON, or the status page's form), the
 * confirmation link (GET page, POST confirms) and the signed unsubscribe link.
 */
export function statusRoutes(deps: FormsDeps) {
  return new Elysia()
    .post(STATUS_PATHS.subscribe, ({ request }) => subscribe(deps, request), {
      parse: "none",
      detail: statusSubscribeOperation,
    })
    .get(STATUS_PATHS.confirm, ({ request }) => confirmationPage(deps, request), {
      detail: statusConfirmPageOperation,
    })
    .post(STATUS_PATHS.confirm, ({ request }) => confirm(deps, request), {
      parse: "none",
      detail: statusConfirmPostOperation,
    })
    .use(unsubscribeRoutes(deps, STATUS_UNSUBSCRIBE_PAGES));
}

/** Back to the status page with the outcome: `?subscribed=1` or `?subscribed=invalid`. */
function backToStatusPage(deps: FormsDeps, outcome: "1" | "invalid"): Response {
  const location = `${statusPageUrl(deps.config)}?subscribed=${outcome}#subscribe`;
  return new Response(null, { status: 303, headers: { location, ...NO_STORE } });
}

/**
 * The digest's pipeline (limit, body, validation, bot screening, one idempotent confirmation
 * email); a form post without `Accept: application/json` goes back to the status page.
 */
function subscribe(deps: FormsDeps, request: Request): Promise<Response> {
  return submitForm(deps, request, {
    route: "status",
    schema: StatusSubscribeIn,
    team: false,
    humanCheck: false,
    deliver: (input, mailer) => requestConfirmation(deps, mailer, statusOptIn(deps), input.email),
    hooks: {
      admit: async (post) => ({
        formPost: bodyKindOf(post) === "form" && !acceptsJson(post),
      }),
      invalid: (_errors, context) =>
        context.formPost ? backToStatusPage(deps, "invalid") : undefined,
      accepted: ({ context }) => (context.formPost ? backToStatusPage(deps, "1") : accepted()),
    },
  });
}

const EXPIRED: PageContent = {
  title: "Link expired",
  heading: "This link has expired",
  message:
    "Confirmation links work for 48 hours. Subscribe again on the status page to get a new one.",
  brand: STATUS_BRAND,
};

function subscribedPage(deps: FormsDeps, heading = "You are subscribed"): PageContent {
  return {
    title: "Subscribed to status updates",
    heading,
    message:
      "Each update of an incident or maintenance will reach you by email. Every email has a link to unsubscribe.",
    brand: STATUS_BRAND,
    back: { href: statusPageUrl(deps.config), label: "Back to the status page" },
  };
}

/** GET ?t=: a page with one button that POSTs the token. Never subscribes. */
async function confirmationPage(deps: FormsDeps, request: Request): Promise<Response> {
  failWithPages(request);
  requireMailer(deps);
  await enforceClientLimit(deps, request, "confirm");
  const token = new URL(request.url).searchParams.get("t") ?? "";
  const row = TOKEN_SHAPE.test(token)
    ? await findConfirmation(deps.db, hashToken(token))
    : undefined;
  if (row?.list !== "status" || row.expiresAt <= deps.now()) return pageResponse(EXPIRED, 410);
  if (row.usedAt) return pageResponse(subscribedPage(deps, "Already confirmed"), 200);
  return pageResponse(
    {
      title: "Confirm your subscription",
      heading: "Confirm your subscription",
      message: "Press the button to receive status updates at the address this link was sent to.",
      brand: STATUS_BRAND,
      form: { action: STATUS_PATHS.confirm, token, button: "Confirm subscription" },
    },
    200,
  );
}

/** POST `t`: joins the list and sends the welcome email. A page, or JSON when asked for. */
function confirm(deps: FormsDeps, request: Request): Promise<Response> {
  const wantsJson = acceptsJson(request);
  const run = async () => {
    const mailer = requireMailer(deps);
    await enforceClientLimit(deps, request, "confirm");
    const token = await confirmationTokenOf(request);
    let outcome: Awaited<ReturnType<typeof confirmSubscription>>;
    try {
      outcome = token
        ? await confirmSubscription(deps, mailer, statusOptIn(deps), token)
        : "expired";
    } catch (error) {
      if (error instanceof MailDeliveryError) throw new ApiError("delivery_failed");
      throw error;
    }
    const status = outcome === "confirmed" ? 200 : 410;
    if (wantsJson) return json({ status: outcome }, status);
    return pageResponse(outcome === "confirmed" ? subscribedPage(deps) : EXPIRED, status);
  };
  if (wantsJson) return guarded(request, { ...NO_STORE }, run);
  failWithPages(request);
  return run();
}
