import { requestIdOf } from "@newsroom/shared/http/request-context";
import { DigestRunOut, MailingSendIn, NewsletterRunOut } from "@newsroom/shared/mailings";
import { Type as t } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { findOrganization } from "../resolve.ts";

/**
 * `POST /internal/v1/digest/send` (`npm run admin -- digest send [--week 2026-W07]`) and
 * `POST /internal/v1/orgs/{org}/newsletter/send` (`npm run admin -- newsletter send <org>`):
 * the forms service sends them (it owns the lists and the send-once records); these routes
 * forward the operator's command to its internal API and answer what it answers.
 */
export function mailingsRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .post(
      "/internal/v1/digest/send",
      ({ body, request }) =>
        deps.calls.forms.call<DigestRunOut>("POST", "/internal/v1/digest/send", {
          body: body ?? {},
          requestId: requestIdOf(request),
        }),
      { body: t.Optional(MailingSendIn), response: DigestRunOut },
    )
    .post(
      "/internal/v1/orgs/:org/newsletter/send",
      async ({ params, body, request }) => {
        const organization = await findOrganization(deps.db, params.org);
        return deps.calls.forms.call<NewsletterRunOut>(
          "POST",
          `/internal/v1/orgs/${organization.id}/newsletter/send`,
          { body: body ?? {}, requestId: requestIdOf(request) },
        );
      },
      { body: t.Optional(MailingSendIn), response: NewsletterRunOut },
    );
}
