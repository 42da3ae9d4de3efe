import { ApiError } from "@newsroom/shared/errors";
import { MailDeliveryError } from "@newsroom/shared/mailer";
import { Elysia } from "elysia";
import {
  digestConfirmationPage,
  digestPage,
  EXPIRED_PAGE,
  organizationConfirmationPage,
  subscribedPage,
} from "../confirmations/newsletter-pages.ts";
import { pageResponse } from "../confirmations/pages.ts";
import { confirmationTokenOf } from "../confirmations/tokens.ts";
import {
  confirmPageOperation,
  confirmPostOperation,
  organizationPreflightOperation,
  organizationSubscribeOperation,
} from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { failWithPages } from "../request/error-pages.ts";
import {
  acceptsJson,
  enforceClientLimit,
  guarded,
  json,
  NO_STORE,
  requireMailer,
} from "../request/respond.ts";
import { submitForm } from "../submission/pipeline.ts";
import { houseNewsroomUrl, originOf } from "./origins.ts";
import { confirmOrganization, describeConfirmation } from "./service.ts";
import {
  corsHeaders,
  newsletterOf,
  organizationSubscribeForm,
  seeOther,
} from "./subscribe-form.ts";

const SUBSCRIBE = "/v1/public/newsletter/:org/subscribe";
const CONFIRM = "/v1/public/newsletter/confirm";
const DIGEST_CONFIRM = "/v1/public/newsletter/subscribe/confirm";

export function newsletterRoutes(deps: FormsDeps) {
  return new Elysia()
    .options(SUBSCRIBE, ({ request, params }) => preflight(deps, request, params.org), {
      detail: organizationPreflightOperation,
    })
    .post(
      SUBSCRIBE,
      ({ request, params }) =>
        submitForm(deps, request, organizationSubscribeForm(deps, params.org)),
      {
        parse: "none",
        detail: organizationSubscribeOperation,
      },
    )
    .get(CONFIRM, ({ request }) => confirmationPage(deps, request), {
      detail: confirmPageOperation,
    })
    .post(CONFIRM, ({ request }) => confirm(deps, request), {
      parse: "none",
      detail: confirmPostOperation,
    });
}

function preflight(deps: FormsDeps, request: Request, slug: string): Promise<Response> {
  return guarded(request, { vary: "Origin" }, async () => {
    const newsletter = await newsletterOf(deps, slug);
    const origin = originOf(request.headers.get("origin"));
    if (!origin || !newsletter.allowed.has(origin)) throw new ApiError("origin_not_allowed");
    return new Response(null, {
      status: 204,
      headers: {
        ...corsHeaders(origin),
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "Content-Type, Accept",
        "access-control-max-age": "600",
      },
    });
  });
}

/** GET /v1/public/newsletter/confirm?t=: a page with one button that POSTs. Never subscribes. */
async function confirmationPage(deps: FormsDeps, request: Request): Promise<Response> {
  failWithPages(request);
  requireMailer(deps);
  await enforceClientLimit(deps, request, "confirm");
  const token = new URL(request.url).searchParams.get("t") ?? "";
  const page = await describeConfirmation(deps, token);
  if (page.state === "expired") return pageResponse(EXPIRED_PAGE, 410);
  if (page.list === "digest") {
    if (page.state === "used") {
      return pageResponse(digestPage("confirmed", houseNewsroomUrl(deps.config)), 200);
    }
    return pageResponse(digestConfirmationPage(DIGEST_CONFIRM, token), 200);
  }
  const { organization, accent, home } = page.newsletter;
  if (page.state === "used") {
    return pageResponse(subscribedPage(organization.name, accent, home, "Already confirmed"), 200);
  }
  return pageResponse(organizationConfirmationPage(organization.name, accent, CONFIRM, token), 200);
}

/**
 * POST /v1/public/newsletter/confirm (urlencoded `t`): opts the address in. A page for people,
 * 303 back to the website with `?newsletter=confirmed` when the subscribe request had a return
 * URL, JSON for clients that ask for it. Idempotent. A form or JSON body without a readable `t`
 * is an unusable link (410), like an unknown token; a body of another type is 415.
 */
function confirm(deps: FormsDeps, request: Request): Promise<Response> {
  const wantsJson = acceptsJson(request);
  const run = async () => {
    const mailer = requireMailer(deps);
    await enforceClientLimit(deps, request, "confirm");
    const token = await confirmationTokenOf(request);
    let outcome: Awaited<ReturnType<typeof confirmOrganization>>;
    try {
      outcome = await confirmOrganization(deps, mailer, token);
    } catch (error) {
      if (error instanceof MailDeliveryError) throw new ApiError("delivery_failed");
      throw error;
    }
    if (outcome.status === "expired") {
      return wantsJson ? json({ status: "expired" }, 410) : pageResponse(EXPIRED_PAGE, 410);
    }
    if (wantsJson) return json({ status: "confirmed" }, 200);
    const { organization, allowed, accent, home } = outcome.newsletter;
    const redirect = outcome.redirect;
    if (redirect && allowed.has(originOf(redirect) ?? "")) return seeOther(redirect, "confirmed");
    return pageResponse(subscribedPage(organization.name, accent, home), 200);
  };
  if (wantsJson) return guarded(request, { ...NO_STORE }, run);
  failWithPages(request);
  return run();
}
