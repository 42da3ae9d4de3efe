import {
  CmsConnectionCheckOut,
  CmsConnectionCreateIn,
  CmsConnectionOut,
  CmsConnectionUpdateIn,
  CmsWriteOut,
} from "@newsroom/shared/cms-connection-commands";
import type { Db } from "@newsroom/shared/db/index";
import { errorAnswer, operation, type ResponseSpec } from "@newsroom/shared/openapi/operation";
import { Elysia, t } from "elysia";
import { organizationIdOf } from "../endpoints/organization.ts";
import {
  type CmsConnectionDeps,
  cmsConnectionRecord,
  connectorOf,
  createCmsConnection,
  deleteCmsConnection,
  findCmsConnection,
  listCmsConnections,
  recordCheck,
  updateCmsConnection,
} from "./connections.ts";
import type { CmsHttpOptions } from "./http.ts";
import { listStoryCmsWrites } from "./writer.ts";

export interface CmsRoutesDeps extends CmsConnectionDeps {
  db: Db;
  /** How the check reaches the CMS: the writer's own options. */
  http: CmsHttpOptions;
}

const TAGS = ["CMS connections (internal)"];
const CONNECTIONS = "/internal/v1/orgs/:org/cms-connections";

const OrgParams = t.Object({ org: t.String({ maxLength: 200 }) });
const ItemParams = t.Object({
  org: t.String({ maxLength: 200 }),
  id: t.String({ maxLength: 100 }),
});
const StoryParams = t.Object({
  org: t.String({ maxLength: 200 }),
  story: t.String({ maxLength: 100 }),
});
const ListOf = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({
    object: t.Literal("list"),
    data: t.Array(item),
    has_more: t.Boolean(),
    next_cursor: t.Null(),
  });

const COMMON: Record<number, ResponseSpec> = {
  401: errorAnswer("No or a wrong ADMIN_TOKEN (`unauthorized`).", ["WWW-Authenticate"]),
  404: errorAnswer(
    "No such organization, or no such connection in it (`not_found`): another organization's answers the same.",
  ),
};

function doc(summary: string, ok: ResponseSpec, more: Record<number, ResponseSpec> = {}) {
  return operation({ summary, tags: TAGS, responses: { 200: ok, ...COMMON, ...more } });
}

function listOf<T>(data: T[]) {
  return { object: "list" as const, data, has_more: false, next_cursor: null };
}

/**
 * The webhooks service's internal API for CMS connections (the one writer of them, the holder of
 * their credentials), for the workspace, which checks people's permissions and audits. Every
 * route is behind ADMIN_TOKEN and names the organization first: each lookup is scoped by it.
 */
export function cmsRoutes(deps: CmsRoutesDeps) {
  const { db } = deps;
  const org = (idOrSlug: string) => organizationIdOf(db, idOrSlug);
  return new Elysia()
    .get(
      CONNECTIONS,
      async ({ params }) =>
        listOf((await listCmsConnections(db, await org(params.org))).map(cmsConnectionRecord)),
      {
        params: OrgParams,
        detail: doc("The organization's CMS connections, oldest first", {
          description: "A list of CmsConnection records (never a credential).",
          schema: ListOf(CmsConnectionOut),
        }),
      },
    )
    .post(
      CONNECTIONS,
      async ({ params, body, set }) => {
        const row = await createCmsConnection(deps, await org(params.org), body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return cmsConnectionRecord(row);
      },
      {
        params: OrgParams,
        body: CmsConnectionCreateIn,
        detail: operation({
          summary: "Add a WordPress or Ghost connection; its credential is sealed, never shown",
          tags: TAGS,
          responses: {
            201: { description: "The connection.", schema: CmsConnectionOut },
            ...COMMON,
            409: errorAnswer("The organization has 10 connections already (`limit_reached`)."),
            422: errorAnswer(
              "A missing field, a URL the endpoint rules refuse, a malformed key, naming each field (`validation_failed`).",
            ),
          },
        }),
      },
    )
    .get(
      `${CONNECTIONS}/:id`,
      async ({ params }) =>
        cmsConnectionRecord(await findCmsConnection(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("One CMS connection", {
          description: "The connection.",
          schema: CmsConnectionOut,
        }),
      },
    )
    .patch(
      `${CONNECTIONS}/:id`,
      async ({ params, body }) =>
        cmsConnectionRecord(await updateCmsConnection(db, await org(params.org), params.id, body)),
      {
        params: ItemParams,
        body: CmsConnectionUpdateIn,
        detail: doc(
          "Enable or disable a connection, or choose what unpublishing does (`draft`, `trash`)",
          { description: "The connection as it is now.", schema: CmsConnectionOut },
          { 422: errorAnswer("Nothing to change (`validation_failed`).") },
        ),
      },
    )
    .delete(
      `${CONNECTIONS}/:id`,
      async ({ params }) =>
        cmsConnectionRecord(await deleteCmsConnection(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("Delete a connection (the posts already written stay in the CMS)", {
          description: "The connection as it was.",
          schema: CmsConnectionOut,
        }),
      },
    )
    .post(
      `${CONNECTIONS}/:id/check`,
      async ({ params }) => {
        const row = await findCmsConnection(db, await org(params.org), params.id);
        const result = await connectorOf(row, deps.secretsKey, deps.http).check();
        const after = await recordCheck(db, row, result);
        return {
          object: "cms_connection_check" as const,
          ok: result.ok,
          problem: result.ok ? null : result.problem,
          message: result.ok
            ? "The connection works: the site answered and the user may publish posts and upload files."
            : result.message,
          connection: cmsConnectionRecord(after),
        };
      },
      {
        params: ItemParams,
        detail: doc("Check a connection: reachable, credentials accepted, allowed to write", {
          description: "What the check found, in plain words.",
          schema: CmsConnectionCheckOut,
        }),
      },
    )
    .get(
      "/internal/v1/orgs/:org/stories/:story/cms-writes",
      async ({ params }) =>
        listOf(await listStoryCmsWrites(db, await org(params.org), params.story)),
      {
        params: StoryParams,
        detail: doc("A story's writes into the organization's CMS connections, newest first", {
          description: "A list of CmsWrite records: status, attempts and the last error.",
          schema: ListOf(CmsWriteOut),
        }),
      },
    );
}
