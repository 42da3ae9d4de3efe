import type { CmsConnectionCreateIn } from "@newsroom/shared/cms-connection-commands";
import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { personActor } from "../../audit.ts";
import {
  checkConnection,
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  updateConnection,
} from "../../cms-connections/commands.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { type CmsPageState, cmsConnectionsPage } from "../pages/cms-connections.ts";

/**
 * An organization's CMS connections, for its owners and admins: list with status and the last
 * problem, add (the credential never shown again), check, enable or disable, choose what
 * unpublishing does, delete after a confirmation. Every command goes to the webhooks service.
 */
export function cmsConnectionsWebRoutes(deps: WebDeps, kit: WebKit) {
  const listPath = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/cms-connections`;

  async function gate(request: Request, org: string) {
    const who = await kit.signedIn(request);
    const access = await kit.permit(who, org, "cms.manage");
    return { who, access };
  }

  async function page(who: SignedInVisitor, access: OrgAccess, state: CmsPageState, status = 200) {
    const connections = await listConnections(deps, access.organization.id);
    return kit.page(who, cmsConnectionsPage(who, access, connections, state), status);
  }

  const actor = (who: SignedInVisitor) => personActor(who.signedIn.person.id);
  const post = { parse: "none" } as const;
  return new Elysia()
    .get("/app/orgs/:org/cms-connections", async ({ request, params }) => {
      const { who, access } = await gate(request, params.org);
      return page(who, access, {});
    })
    .post(
      "/app/orgs/:org/cms-connections",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const kind = form.text("kind", 20);
        const input: CmsConnectionCreateIn =
          kind === "ghost"
            ? { kind, url: form.text("url", 2048), admin_api_key: form.text("admin_api_key", 300) }
            : {
                kind,
                url: form.text("url", 2048),
                username: form.text("username", 200),
                application_password: form.text("application_password", 200),
              };
        // Never the credential: the form comes back empty of it.
        const values = { kind, url: input.url ?? "", username: input.username ?? "" };
        try {
          await createConnection(deps, access.organization.id, input, actor(who));
          return kit.redirect(withDone(listPath(access), "cms-connection-added"));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.code === "validation_failed") {
            const errors: Record<string, string> = {};
            for (const f of error.fields ?? []) {
              errors[f.field] ??= f.message ?? "Check this field.";
            }
            return page(who, access, { add: { values, errors } }, 422);
          }
          if (error.code === "limit_reached") {
            return page(who, access, { add: { values }, problem: error.message }, 409);
          }
          throw error;
        }
      },
      post,
    )
    .post(
      "/app/orgs/:org/cms-connections/:id/check",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        await kit.form(request, who);
        const checked = await checkConnection(deps, access.organization.id, params.id);
        return page(who, access, { checked });
      },
      post,
    )
    .post(
      "/app/orgs/:org/cms-connections/:id",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const mode = form.text("unpublish_mode", 10);
        await updateConnection(
          deps,
          access.organization.id,
          params.id,
          {
            enabled: form.text("enabled", 10) === "yes",
            unpublish_mode: mode === "trash" ? "trash" : "draft",
          },
          actor(who),
        );
        return kit.redirect(withDone(listPath(access), "cms-connection-changed"));
      },
      post,
    )
    .get("/app/orgs/:org/cms-connections/:id/delete", async ({ request, params }) => {
      const { who, access } = await gate(request, params.org);
      const connection = await getConnection(deps, access.organization.id, params.id);
      return kit.page(
        who,
        confirmPage(who, {
          title: "Delete this connection?",
          question: `Stories are no longer written into ${connection.url}. Posts already written stay on that site; their record here is deleted. This cannot be undone.`,
          action: `${listPath(access)}/${connection.id}/delete`,
          button: "Delete connection",
          back: listPath(access),
        }),
      );
    })
    .post(
      "/app/orgs/:org/cms-connections/:id/delete",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        if (form.text("confirm", 10) !== "yes") {
          return kit.redirect(`${listPath(access)}/${encodeURIComponent(params.id)}/delete`);
        }
        await deleteConnection(deps, access.organization.id, params.id, actor(who));
        return kit.redirect(withDone(listPath(access), "cms-connection-deleted"));
      },
      post,
    );
}
