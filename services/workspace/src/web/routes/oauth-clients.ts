import { workspacePeople } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { inArray } from "drizzle-orm";
import { Elysia } from "elysia";
import type { OrgAccess } from "../../identity/members/access.ts";
import { deleteOAuthClient } from "../../oauth/client-deletion.ts";
import {
  findOrganizationOAuthClient,
  listOAuthClients,
  type OAuthClientRow,
  registerOAuthClient,
} from "../../oauth/index.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { isFreshSignIn, requireFreshSignIn } from "../fresh-sign-in.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import {
  type OAuthClientFormState,
  type OAuthClientListItem,
  oauthClientsPage,
  oauthClientsPath,
} from "../pages/oauth-clients.ts";

/** The form's fields as the registration names them; a problem of one line names its number. */
function fieldErrorsOf(error: ApiError): NonNullable<OAuthClientFormState["errors"]> {
  const errors: NonNullable<OAuthClientFormState["errors"]> = {};
  for (const problem of error.fields ?? []) {
    const [name, index] = problem.field.split(".");
    const message = problem.message ?? "This is not valid.";
    if (name === "name") errors.name ??= message;
    else if (name === "grant_types") errors.grant_types ??= message;
    else if (name === "redirect_uris") {
      errors.redirect_uris ??=
        index === undefined ? message : `Line ${Number(index) + 1}: ${message}`;
    }
  }
  return errors;
}

/**
 * An organization's OAuth applications (owners and admins): the list, registration through the
 * same function as the internal API, and deletion after a confirmation, which ends every grant
 * and token of the application. Changes need a sign-in from the last 12 hours.
 */
export function oauthClientsWebRoutes(deps: WebDeps, kit: WebKit) {
  async function listItems(clients: OAuthClientRow[]): Promise<OAuthClientListItem[]> {
    const creators = [...new Set(clients.map((client) => client.createdBy).filter((id) => id))];
    const emails = new Map(
      creators.length === 0
        ? []
        : (
            await deps.db
              .select({ id: workspacePeople.id, email: workspacePeople.email })
              .from(workspacePeople)
              .where(inArray(workspacePeople.id, creators as string[]))
          ).map((person) => [person.id, person.email]),
    );
    return clients.map((client) => ({
      id: client.id,
      name: client.name,
      clientId: client.clientId,
      redirectUris: client.redirectUris,
      grantTypes: client.grantTypes,
      createdBy: client.createdBy ? (emails.get(client.createdBy) ?? null) : null,
      createdAt: client.createdAt,
    }));
  }

  async function listPage(
    who: SignedInVisitor,
    access: OrgAccess,
    state: OAuthClientFormState = {},
  ) {
    return oauthClientsPage(
      who,
      {
        access,
        clients: await listItems(await listOAuthClients(deps.db, access.organization.id)),
        apiApprovalsEnabled: access.organization.apiApprovalsEnabled,
        needsCode: !isFreshSignIn(who.signedIn.session, deps.now()),
      },
      state,
    );
  }

  /** The application in the organization; another organization's is a 404. */
  async function clientAccess(who: SignedInVisitor, org: string, id: string) {
    const access = await kit.permit(who, org, "oauth_client.manage");
    const client = /^[0-9a-f-]{36}$/.test(id)
      ? await findOrganizationOAuthClient(deps.db, access.organization.id, id)
      : null;
    if (!client) throw new ApiError("not_found", "No such application.");
    return { access, client };
  }

  const post = { parse: "none" } as const;
  return new Elysia()
    .get("/app/orgs/:org/oauth-clients", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "oauth_client.manage");
      return kit.page(who, await listPage(who, access));
    })
    .post(
      "/app/orgs/:org/oauth-clients",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await kit.permit(who, params.org, "oauth_client.manage");
        requireFreshSignIn(who, deps.now(), oauthClientsPath(access));
        const typedUris = form.text("redirect_uris", 6_000);
        const state: OAuthClientFormState = {
          name: form.text("name", 200),
          redirectUris: typedUris,
          grantTypes: form.all("grant_types"),
        };
        try {
          await registerOAuthClient(
            deps.db,
            access.organization.id,
            {
              name: state.name ?? "",
              redirect_uris: typedUris
                .split(/\r?\n/)
                .map((line) => line.trim())
                .filter(Boolean),
              grant_types: state.grantTypes ?? [],
            },
            who.signedIn.person.id,
          );
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.code === "validation_failed") {
            state.errors = fieldErrorsOf(error);
            return kit.page(who, await listPage(who, access, state), 422);
          }
          if (error.code === "limit_reached") {
            state.errors = { name: `${error.message} Delete one first.` };
            return kit.page(who, await listPage(who, access, state), 409);
          }
          throw error;
        }
        return kit.redirect(withDone(oauthClientsPath(access), "oauth-client-registered"));
      },
      post,
    )
    .get("/app/orgs/:org/oauth-clients/:id/delete", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { access, client } = await clientAccess(who, params.org, params.id);
      return kit.page(
        who,
        confirmPage(who, {
          title: `Delete the application ${client.name}?`,
          question: `Every permission members gave ${client.name} ends, and its tokens stop working at once, for good. It can no longer ask anyone: register it again to use it.`,
          action: `${oauthClientsPath(access)}/${client.id}/delete`,
          button: "Delete application",
          back: oauthClientsPath(access),
        }),
      );
    })
    .post(
      "/app/orgs/:org/oauth-clients/:id/delete",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { access, client } = await clientAccess(who, params.org, params.id);
        if (form.text("confirm") !== "yes") {
          return kit.redirect(`${oauthClientsPath(access)}/${client.id}/delete`);
        }
        requireFreshSignIn(who, deps.now(), oauthClientsPath(access));
        await deleteOAuthClient(deps.db, access.organization.id, client.id, who.signedIn.person.id);
        return kit.redirect(withDone(oauthClientsPath(access), "oauth-client-deleted"));
      },
      post,
    );
}
