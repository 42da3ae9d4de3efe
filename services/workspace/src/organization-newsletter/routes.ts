import { loadConfig } from "@newsroom/shared/config";
import { openContactListReader } from "@newsroom/shared/contact-lists";
import type { Db } from "@newsroom/shared/db/index";
import { openMailer } from "@newsroom/shared/mailer";
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { WorkspaceConfig } from "../config.ts";
import { DigestSendIn } from "../digest/model.ts";
import type { DigestOptions } from "../digest/routes.ts";
import { type OrganizationNewsletterDeps, sendOrganizationNewsletter } from "./service.ts";

/**
 * `POST /internal/v1/orgs/{org}/newsletter/send` (`npm run admin -- newsletter send <org>
 * [--week 2026-W07]`): the organization's newsletter for a week. Configured like the digest.
 */
export function organizationNewsletterRoutes(db: Db, options?: DigestOptions) {
  let deps: OrganizationNewsletterDeps | undefined;
  const resolve = () => {
    const config = options?.config ?? loadConfig(WorkspaceConfig);
    deps ??= {
      db,
      config,
      mailer: options?.mailer === undefined ? openMailer(config) : options.mailer,
      contactLists: openContactListReader(config),
      now: options?.now ?? (() => new Date()),
    };
    return deps;
  };
  return new Elysia().post(
    "/internal/v1/orgs/:org/newsletter/send",
    async ({ params, body }) => sendOrganizationNewsletter(resolve(), params.org, body?.week),
    { body: Type.Optional(DigestSendIn) },
  );
}
