import { acceptedKeyEnvironment } from "@newsroom/shared/api-keys";
import { ApiError } from "@newsroom/shared/errors";
import { NAME_MAX_LENGTH } from "@newsroom/shared/records";
import { Elysia } from "elysia";
import { personActor } from "../../audit.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import { can } from "../../identity/members/permissions.ts";
import { KeyCreateIn } from "../../keys/model.ts";
import {
  createApiKey,
  listApiKeys,
  organizationOfApiKey,
  revokeApiKey,
} from "../../keys/service.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { decodeForm } from "../form-decode.ts";
import { isFreshSignIn, requireFreshSignIn } from "../fresh-sign-in.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { type KeyFormState, keyStatus, keysPage, newKeyPage } from "../pages/keys.ts";
import { allowOwnScripts } from "../secret-once.ts";

/**
 * An organization's API keys: the list, creation (the key shown once) and revocation after a
 * confirmation. Changes need a sign-in from the last 12 hours.
 */
export function keysWebRoutes(deps: WebDeps, kit: WebKit) {
  const environment = acceptedKeyEnvironment(deps.serviceEnv);
  const keysPath = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/keys`;

  async function listPage(who: SignedInVisitor, access: OrgAccess, state: KeyFormState = {}) {
    const now = deps.now();
    return keysPage(
      who,
      {
        access,
        keys: await listApiKeys(deps.db, access.organization.id),
        now,
        environment,
        mayCreate: can(access.role, "key.create"),
        mayRevoke: can(access.role, "key.revoke"),
        needsCode: !isFreshSignIn(who.signedIn.session, now),
      },
      state,
    );
  }

  /** The key and the person's access to its organization; another organization's key is a 404. */
  async function keyAccess(who: SignedInVisitor, keyId: string) {
    const orgId = await organizationOfApiKey(deps.db, keyId);
    if (!orgId) throw new ApiError("not_found", "No such key.");
    const access = await kit.permit(who, orgId, "key.revoke");
    const key = (await listApiKeys(deps.db, orgId)).find((row) => row.id === keyId);
    if (!key) throw new ApiError("not_found", "No such key.");
    return { access, key };
  }

  return new Elysia()
    .get("/app/orgs/:org/keys", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "key.create");
      return kit.page(who, await listPage(who, access));
    })
    .post(
      "/app/orgs/:org/keys",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await kit.permit(who, params.org, "key.create");
        requireFreshSignIn(who, deps.now(), keysPath(access));
        const decoded = decodeForm(form, KeyCreateIn, {
          wording: {
            name: `Keep the name to ${NAME_MAX_LENGTH} characters.`,
            scopes: "Choose at least one scope.",
            lifetime_days: "Choose a lifetime: 30, 90, 180 or 365 days.",
            environment: `This deployment accepts ${environment} keys only.`,
          },
        });
        const errors = decoded.ok ? {} : decoded.errors;
        if (decoded.ok && decoded.value.environment !== environment) {
          errors.environment = `This deployment accepts ${environment} keys only.`;
        }
        const state: KeyFormState = {
          name: decoded.given.name as string | undefined,
          scopes: (decoded.given.scopes as string[] | undefined) ?? [],
          lifetimeDays: Number(decoded.given.lifetime_days),
          errors,
        };
        if (!decoded.ok || Object.keys(errors).length > 0) {
          return kit.page(who, await listPage(who, access, state), 422);
        }
        try {
          const { row, secret } = await createApiKey(
            deps.db,
            access.organization.id,
            decoded.value,
            deps.serviceEnv,
            personActor(who.signedIn.person.id),
          );
          const subject = `key:${row.id}`;
          const handed = kit.shownOnce.handOver(
            who.signedIn.session.id,
            subject,
            secret,
            deps.now(),
          );
          return kit.redirect(`/app/keys/${row.id}/created`, [handed]);
        } catch (error) {
          if (!(error instanceof ApiError && error.code === "limit_reached")) throw error;
          state.problem = `${error.message} Nothing was created.`;
          return kit.page(who, await listPage(who, access, state), 409);
        }
      },
      { parse: "none" },
    )
    .get("/app/keys/:id/created", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const orgId = await organizationOfApiKey(deps.db, params.id);
      if (!orgId) throw new ApiError("not_found", "No such key.");
      const access = await kit.permit(who, orgId, "key.create");
      const key = (await listApiKeys(deps.db, orgId)).find((row) => row.id === params.id);
      if (!key) throw new ApiError("not_found", "No such key.");
      const session = who.signedIn.session.id;
      const secret = kit.shownOnce.take(request, session, `key:${key.id}`, deps.now());
      who.setCookies.push(kit.shownOnce.spent());
      return allowOwnScripts(kit.page(who, newKeyPage(who, access, key, secret)));
    })
    .get("/app/keys/:id/revoke", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { access, key } = await keyAccess(who, params.id);
      if (keyStatus(key, deps.now()) === "revoked") return kit.redirect(keysPath(access));
      return kit.page(
        who,
        confirmPage(who, {
          title: "Revoke this key?",
          question: `The key ${key.prefix}…${key.lastFour} (${key.scopes.join(", ")}) stops working at once, for good. Servers that still use it get 401 answers.`,
          action: `/app/keys/${key.id}/revoke`,
          button: "Revoke key",
          back: keysPath(access),
        }),
      );
    })
    .post(
      "/app/keys/:id/revoke",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        await kit.form(request, who);
        const { access, key } = await keyAccess(who, params.id);
        requireFreshSignIn(who, deps.now(), `/app/keys/${key.id}/revoke`);
        await revokeApiKey(
          deps.db,
          access.organization.id,
          key.id,
          personActor(who.signedIn.person.id),
        );
        return kit.redirect(withDone(keysPath(access), "key-revoked"));
      },
      { parse: "none" },
    );
}
