import { requestIdOf } from "@newsroom/shared/http/request-context";
import { MailingSendIn, NewsletterRunOut } from "@newsroom/shared/mailings";
import { Type as t } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { findOrganization } from "../resolve.ts";

/**
 * `POST /internal/v1/orgs/{org}/newsletter/send` (`npm run admin -- newsletter send <org>
 * [--week 2026-W07]`): the organization's newsletter for a week. The workspace finds the
 * organization (404 here); the forms service, which reads its SES contact list and keeps the
 * send-once records, sends it.
 */
export function organizationNewsletterRoutes(deps: WorkspaceDeps) {
  return new Elysia().post(
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
