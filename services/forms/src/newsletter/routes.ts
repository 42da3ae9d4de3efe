import { ApiError, type FieldError, notFound, validationFailed } from "@newsroom/shared/errors";
import { errorResponse, toApiError } from "@newsroom/shared/http/error-response";
import { clientIpOf, requestIdOf } from "@newsroom/shared/http/request-context";
import { MailDeliveryError } from "@newsroom/shared/mailer";
import { Elysia } from "elysia";
import { type PageContent, pageResponse } from "../confirmations/pages.ts";
import {
  confirmPageOperation,
  confirmPostOperation,
  organizationPreflightOperation,
  organizationSubscribeOperation,
} from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { digestPage } from "../digest/routes.ts";
import { bodyKindOf, type ParsedBody, readBody } from "../request/body.ts";
import {
  acceptsJson,
  enforceClientLimit,
  guarded,
  json,
  NO_STORE,
  requireMailer,
} from "../request/respond.ts";
import { deliverOnce } from "../submission/deliver.ts";
import { checkSubmission, looksAutomated } from "../submission/envelope.ts";
import { type FormOutcome, ORG_SLUG, OrganizationSubscribeIn } from "./model.ts";
import { originOf, requestOrigin, withOutcome } from "./origins.ts";
import {
  confirmOrganization,
  describeConfirmation,
  loadNewsletter,
  type Newsletter,
  subscribeToOrganization,
} from "./service.ts";

const SUBSCRIBE = "/v1/public/newsletter/:org/subscribe";
const CONFIRM = "/v1/public/newsletter/confirm";
const DIGEST_CONFIRM = "/v1/public/newsletter/subscribe/confirm";

export function newsletterRoutes(deps: FormsDeps) {
  return new Elysia()
    .options(SUBSCRIBE, ({ request, params }) => preflight(deps, request, params.org), {
      detail: organizationPreflightOperation,
    })
    .post(SUBSCRIBE, ({ request, params }) => subscribe(deps, request, params.org), {
      parse: "none",
      detail: organizationSubscribeOperation,
    })
    .get(CONFIRM, ({ request }) => confirmationPage(deps, request), {
      detail: confirmPageOperation,
    })
    .post(CONFIRM, ({ request }) => confirm(deps, request), {
      parse: "none",
      detail: confirmPostOperation,
    });
}

async function newsletterOf(deps: FormsDeps, slug: string): Promise<Newsletter> {
  const newsletter = ORG_SLUG.test(slug) ? await loadNewsletter(deps, slug) : null;
  if (!newsletter) throw notFound("No newsletter here.");
  return newsletter;
}

/** CORS answers only the organization's allowed origins; never with credentials. */
function corsHeaders(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "X-Request-Id",
  };
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

/** `fields`: for `invalid`, the fields at fault, so a page without JavaScript can say which. */
function seeOther(url: string, outcome: FormOutcome, fields: string[] = []): Response {
  return new Response(null, {
    status: 303,
    headers: { location: withOutcome(url, outcome, fields), ...NO_STORE },
  });
}

/** The top-level fields named by field errors (`body.0.text` is `body`), each once. */
function faultyFields(errors: FieldError[]): string[] {
  return [...new Set(errors.map((error) => error.field.split(/[.[]/)[0]!))];
}

/** The `redirect` field as posted (the last one when repeated), before any validation. */
function postedRedirect(fields: ParsedBody["fields"]): string | undefined {
  const raw = Object.hasOwn(fields, "redirect") ? fields.redirect : undefined;
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * POST /v1/public/newsletter/{org}/subscribe. Order: configured, rate limit per client, known
 * organization, allowed origin, newsletter open, body, validation, bot screening, human check,
 * then one idempotent confirmation (or, single opt-in, welcome) email keyed by submission_id.
 * Form posts without `Accept: application/json` are answered 303 to `redirect` when it is on an
 * allowed origin, else to the posting page, with `?newsletter=<outcome>` and, when invalid,
 * `&newsletter_fields=<the fields at fault>`.
 */
function subscribe(deps: FormsDeps, request: Request, slug: string): Promise<Response> {
  const headers: Record<string, string> = { ...NO_STORE, vary: "Origin" };
  const formPost = bodyKindOf(request) === "form" && !acceptsJson(request);
  return guarded(request, headers, async () => {
    const mailer = requireMailer(deps);
    await enforceClientLimit(deps, request, "newsletter");
    const newsletter = await newsletterOf(deps, slug);
    const origin = requestOrigin(request);
    if (!origin || !newsletter.allowed.has(origin)) throw new ApiError("origin_not_allowed");
    Object.assign(headers, corsHeaders(origin));
    const { organization, allowed } = newsletter;
    // The posting page when it is on the same allowed origin, else that origin's root.
    const referer = request.headers.get("referer");
    const postingPage = referer && originOf(referer) === origin ? referer : `${origin}/`;

    if (!organization.newsletterEnabled && !formPost) throw notFound("No newsletter here.");
    const body = await readBody(request);
    // A form post returns to `redirect` whatever the outcome, when it is on an allowed origin:
    // the Referer is often cut to the origin, and the posting page is what the person knows.
    const posted = postedRedirect(body.fields);
    const redirectAllowed = posted !== undefined && allowed.has(originOf(posted) ?? "");
    const target = redirectAllowed ? posted : postingPage;
    if (!organization.newsletterEnabled) return seeOther(target, "closed");
    const result = checkSubmission(OrganizationSubscribeIn, body.fields, body.kind);
    const errors: FieldError[] = "errors" in result ? [...result.errors] : [];
    const redirect = "value" in result ? result.value.redirect : undefined;
    if (posted !== undefined && !redirectAllowed && !errors.some((e) => e.field === "redirect")) {
      errors.push({
        field: "redirect",
        reason: "not_allowed",
        message: "must be an address on one of the organization's allowed origins",
      });
    }
    if (errors.length > 0 || !("value" in result)) {
      if (formPost) return seeOther(target, "invalid", faultyFields(errors));
      throw validationFailed(errors);
    }
    const input = result.value;
    const answer = (status: "pending" | "subscribed") =>
      formPost ? seeOther(target, status) : json({ status }, 202);
    if (looksAutomated(input, deps.now())) return answer("pending");

    let singleOptIn = false;
    if (input.human_check_token) {
      const check = await deps.humanCheck.verify(input.human_check_token, clientIpOf(request));
      if (check === "failed") {
        if (formPost) return seeOther(target, "invalid", ["human_check_token"]);
        throw validationFailed([
          { field: "human_check_token", reason: "human_check_failed", message: "did not pass" },
        ]);
      }
      singleOptIn = check === "passed";
    }
    await deliverOnce(
      deps.db,
      input.submission_id,
      `newsletter:${organization.slug}`,
      deps.now,
      () =>
        subscribeToOrganization(deps, mailer, organization, {
          email: input.email,
          redirect: redirect ?? null,
          singleOptIn,
        }),
    );
    return answer(singleOptIn ? "subscribed" : "pending");
  });
}

const EXPIRED_PAGE: Omit<PageContent, "brand"> = {
  title: "Link expired",
  heading: "This link has expired",
  message: "Confirmation links work for 48 hours. Subscribe again on the website to get a new one.",
};

/** GET /v1/public/newsletter/confirm?t=: a page with one button that POSTs. Never subscribes. */
function confirmationPage(deps: FormsDeps, request: Request): Promise<Response> {
  return pageErrors(request, async () => {
    requireMailer(deps);
    await enforceClientLimit(deps, request, "confirm");
    const token = new URL(request.url).searchParams.get("t") ?? "";
    const page = await describeConfirmation(deps, token);
    if (page.state === "expired")
      return pageResponse({ ...EXPIRED_PAGE, brand: "Newsletter" }, 410);
    if (page.list === "digest") {
      if (page.state === "used") return pageResponse(digestPage("confirmed"), 200);
      return pageResponse(
        {
          title: "Confirm your subscription",
          heading: "Confirm your subscription",
          message:
            "Press the button to receive the weekly digest at the address this link was sent to.",
          brand: "Weekly digest",
          form: { action: DIGEST_CONFIRM, token, button: "Confirm subscription" },
        },
        200,
      );
    }
    const { organization, accent } = page.newsletter;
    if (page.state === "used") {
      return pageResponse(subscribedPage(organization.name, accent, "Already confirmed"), 200);
    }
    return pageResponse(
      {
        title: `Confirm your subscription to ${organization.name}`,
        heading: "Confirm your subscription",
        message: `Press the button to receive ${organization.name}'s newsletter at the address this link was sent to.`,
        brand: organization.name,
        accent,
        form: { action: CONFIRM, token, button: "Confirm subscription" },
      },
      200,
    );
  });
}

function subscribedPage(name: string, accent: string | null, heading = "You are subscribed") {
  return {
    title: `Subscribed to ${name}`,
    heading,
    message: `You will receive ${name}'s newsletter. Every issue has a link to unsubscribe.`,
    brand: name,
    accent,
  };
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
      return wantsJson
        ? json({ status: "expired" }, 410)
        : pageResponse({ ...EXPIRED_PAGE, brand: "Newsletter" }, 410);
    }
    if (wantsJson) return json({ status: "confirmed" }, 200);
    const { organization, allowed, accent } = outcome.newsletter;
    const redirect = outcome.redirect;
    if (redirect && allowed.has(originOf(redirect) ?? "")) return seeOther(redirect, "confirmed");
    return pageResponse(subscribedPage(organization.name, accent), 200);
  };
  return wantsJson ? guarded(request, { ...NO_STORE }, run) : pageErrors(request, run);
}

/**
 * The token `t` of a confirmation body. A body that cannot be read (not UTF-8, malformed JSON or
 * multipart) or holds no string `t` gives "", which no link matches.
 */
async function confirmationTokenOf(request: Request): Promise<string> {
  let body: ParsedBody;
  try {
    body = await readBody(request);
  } catch (error) {
    if (error instanceof ApiError && error.code === "validation_failed") return "";
    throw error;
  }
  const raw = Object.hasOwn(body.fields, "t") ? body.fields.t : undefined;
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === "string" ? value.trim() : "";
}

const ERROR_PAGES: Partial<Record<number, Omit<PageContent, "brand">>> = {
  429: {
    title: "Too many attempts",
    heading: "Too many attempts",
    message: "Wait a minute, then try again.",
  },
  502: {
    title: "Not finished",
    heading: "We could not finish",
    message:
      "The confirmation could not be completed. Your link still works: try again in a moment.",
  },
  503: {
    title: "Unavailable",
    heading: "Newsletters are unavailable",
    message: "Try again later.",
  },
};

/** For pages: an error becomes a small page with the error's status instead of JSON. */
async function pageErrors(request: Request, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    const apiError = toApiError(error, request);
    const page = ERROR_PAGES[apiError.status];
    if (!page) return errorResponse(apiError, requestIdOf(request));
    const response = pageResponse({ ...page, brand: "Newsletter" }, apiError.status);
    for (const [name, value] of Object.entries(apiError.headers)) response.headers.set(name, value);
    return response;
  }
}
