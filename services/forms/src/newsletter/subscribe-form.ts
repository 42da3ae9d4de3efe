import { ApiError, type FieldError, notFound } from "@newsroom/shared/errors";
import type { FormsDeps } from "../deps.ts";
import { bodyKindOf } from "../request/body.ts";
import { acceptsJson, json, NO_STORE } from "../request/respond.ts";
import type { FormSpec } from "../submission/pipeline.ts";
import { type FormOutcome, ORG_SLUG, OrganizationSubscribeIn } from "./model.ts";
import { originOf, requestOrigin, withOutcome } from "./origins.ts";
import { loadNewsletter, type Newsletter, subscribeToOrganization } from "./service.ts";

/** What the subscribe hooks know of one post, once it is admitted. */
export interface OrganizationPost {
  newsletter: Newsletter;
  /** A form post without `Accept: application/json`: every outcome is a 303 back to the website. */
  formPost: boolean;
  /** Where a form post goes back to: the posting page, or the posted `redirect` when allowed. */
  returnTo: string;
}

const REDIRECT_NOT_ALLOWED: FieldError = {
  field: "redirect",
  reason: "not_allowed",
  message: "must be an address on one of the organization's allowed origins",
};

/**
 * POST /v1/public/newsletter/{org}/subscribe through the forms pipeline. Order: configured, rate
 * limit per client, known organization, allowed origin, newsletter open, body, validation, bot
 * screening, human check, then one idempotent confirmation (or, single opt-in behind a passed
 * human check, welcome) email keyed by submission_id. Form posts without
 * `Accept: application/json` are answered 303 to `redirect` when it is on an allowed origin, else
 * to the posting page, with `?newsletter=<outcome>` and, when invalid,
 * `&newsletter_fields=<the fields at fault>`.
 */
export function organizationSubscribeForm(
  deps: FormsDeps,
  slug: string,
): FormSpec<typeof OrganizationSubscribeIn, OrganizationPost> {
  return {
    route: `newsletter:${slug}`,
    schema: OrganizationSubscribeIn,
    team: false,
    humanCheck: "optional",
    limit: "newsletter",
    deliver: (input, mailer, { context, human }) =>
      subscribeToOrganization(deps, mailer, context.newsletter.organization, {
        email: input.email,
        redirect: input.redirect ?? null,
        singleOptIn: human,
      }),
    hooks: {
      headers: { vary: "Origin" },
      admit: async (request, headers) => {
        const newsletter = await newsletterOf(deps, slug);
        const origin = requestOrigin(request);
        if (!origin || !newsletter.allowed.has(origin)) throw new ApiError("origin_not_allowed");
        Object.assign(headers, corsHeaders(origin));
        const formPost = bodyKindOf(request) === "form" && !acceptsJson(request);
        if (!newsletter.organization.newsletterEnabled && !formPost) {
          throw notFound("No newsletter here.");
        }
        // The posting page when it is on the same allowed origin, else that origin's root.
        const referer = request.headers.get("referer");
        const returnTo = referer && originOf(referer) === origin ? referer : `${origin}/`;
        return { newsletter, formPost, returnTo };
      },
      screen: (fields, post) => {
        // A form post returns to `redirect` whatever the outcome, when it is on an allowed
        // origin: the Referer is often cut to the origin, and the posting page is what the
        // person knows.
        const posted = postedRedirect(fields);
        const allowed = posted !== undefined && post.newsletter.allowed.has(originOf(posted) ?? "");
        const context = allowed ? { ...post, returnTo: posted } : post;
        if (!post.newsletter.organization.newsletterEnabled) {
          return seeOther(context.returnTo, "closed");
        }
        return { context, errors: posted !== undefined && !allowed ? [REDIRECT_NOT_ALLOWED] : [] };
      },
      invalid: (errors, post) =>
        post.formPost ? seeOther(post.returnTo, "invalid", faultyFields(errors)) : undefined,
      accepted: ({ context, human }) => {
        const status = human ? "subscribed" : "pending";
        return context.formPost ? seeOther(context.returnTo, status) : json({ status }, 202);
      },
    },
  };
}

/** The organization's newsletter; 404 for a malformed or unknown organization. */
export async function newsletterOf(deps: FormsDeps, slug: string): Promise<Newsletter> {
  const newsletter = ORG_SLUG.test(slug) ? await loadNewsletter(deps, slug) : null;
  if (!newsletter) throw notFound("No newsletter here.");
  return newsletter;
}

/** CORS answers only the organization's allowed origins; never with credentials. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "X-Request-Id",
  };
}

/** `fields`: for `invalid`, the fields at fault, so a page without JavaScript can say which. */
export function seeOther(url: string, outcome: FormOutcome, fields: string[] = []): Response {
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
function postedRedirect(fields: Record<string, unknown>): string | undefined {
  const raw = Object.hasOwn(fields, "redirect") ? fields.redirect : undefined;
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === "string" && value !== "" ? value : undefined;
}
