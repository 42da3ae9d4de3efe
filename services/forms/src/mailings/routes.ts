import { adminToken } from "@newsroom/shared/config";
import { checkAdminToken } from "@newsroom/shared/http/internal-auth";
import { DigestRunOut, MailingSendIn, NewsletterRunOut } from "@newsroom/shared/mailings";
import { errorAnswer, operation } from "@newsroom/shared/openapi/operation";
import { Type as t } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { FormsDeps } from "../deps.ts";
import { sendWeeklyDigest } from "./digest-send.ts";
import { sendOrganizationNewsletter } from "./newsletter-send.ts";

const INTERNAL_ERRORS = {
  401: errorAnswer("No or another bearer token than ADMIN_TOKEN (`unauthorized`)."),
  422: errorAnswer("A malformed week, one not begun, or one ended over 28 days ago."),
  503: errorAnswer("Email (or, for newsletters, SES contact lists) is not configured here."),
};

/**
 * The mailings' internal API, behind ADMIN_TOKEN: the workspace forwards its operators'
 * `digest send` and `newsletter send` here. Never behind the public gateway (its routing names
 * no `/internal` path).
 */
export function mailingsRoutes(deps: FormsDeps) {
  const token = adminToken(deps.config);
  // Before the body is validated: without the token, nothing about the body is told.
  const adminOnly = ({ request }: { request: Request }) =>
    checkAdminToken(request.headers.get("authorization"), token);
  return new Elysia()
    .post("/internal/v1/digest/send", ({ body }) => sendWeeklyDigest(deps, body?.week), {
      transform: adminOnly,
      body: t.Optional(MailingSendIn),
      response: DigestRunOut,
      detail: operation({
        summary: "Send the weekly digest of a week (the current ISO week when left out)",
        description:
          "At most one copy per confirmed subscriber and week, across runs; a refused copy goes out on the next run.",
        tags: ["Internal"],
        status: "Live",
        requestBody: { schema: MailingSendIn, contentTypes: ["application/json"] },
        responses: {
          200: { description: "What the run did.", schema: DigestRunOut },
          ...INTERNAL_ERRORS,
        },
      }),
    })
    .post(
      "/internal/v1/orgs/:org/newsletter/send",
      ({ params, body }) => sendOrganizationNewsletter(deps, params.org, body?.week),
      {
        transform: adminOnly,
        params: t.Object({ org: t.String({ maxLength: 64 }) }),
        body: t.Optional(MailingSendIn),
        response: NewsletterRunOut,
        detail: operation({
          summary: "Send an organization's newsletter of a week to its SES contact list",
          description:
            "At most one copy per opted-in contact and week, across runs; SES adds the unsubscribe headers and link.",
          tags: ["Internal"],
          status: "Live",
          pathParameters: { org: t.String({ maxLength: 64 }) },
          requestBody: { schema: MailingSendIn, contentTypes: ["application/json"] },
          responses: {
            200: { description: "What the run did.", schema: NewsletterRunOut },
            404: errorAnswer("No such organization (`not_found`)."),
            409: errorAnswer("The organization's newsletter is turned off (`conflict`)."),
            ...INTERNAL_ERRORS,
          },
        }),
      },
    );
}
