import type {
  CmsConnectionCheckOut,
  CmsConnectionCreateIn,
  CmsConnectionOut,
  CmsConnectionUpdateIn,
  CmsWriteOut,
} from "@newsroom/shared/cms-connection-commands";
import type { Db } from "@newsroom/shared/db/index";
import { cmsConnections } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import type { InternalClient } from "@newsroom/shared/http/internal-client";
import { isUuid } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";
import { audit } from "../audit.ts";

/**
 * CMS connections as the workspace manages them: every command goes to the webhooks service's
 * internal API (the one writer of connections, the holder of their credentials); the workspace
 * writes its own audit row once the command succeeded. Permission checks are the callers'.
 */
export interface CmsCommandDeps {
  db: Db;
  calls: { webhooks: InternalClient };
}

const connections = (organizationId: string) =>
  `/internal/v1/orgs/${organizationId}/cms-connections`;
const connection = (organizationId: string, id: string) =>
  `${connections(organizationId)}/${encodeURIComponent(id)}`;

/**
 * The organization a connection belongs to: the workspace's paths name a connection by its id
 * alone, so it reads the owner first (a read of the webhooks service's table, as for endpoints).
 */
export async function connectionOrganization(db: Db, id: string): Promise<string> {
  const [row] = isUuid(id)
    ? await db
        .select({ organizationId: cmsConnections.organizationId })
        .from(cmsConnections)
        .where(eq(cmsConnections.id, id))
    : [];
  if (!row) throw new ApiError("not_found", "No such CMS connection.");
  return row.organizationId;
}

export async function listConnections(
  deps: CmsCommandDeps,
  organizationId: string,
): Promise<CmsConnectionOut[]> {
  return (
    await deps.calls.webhooks.call<{ data: CmsConnectionOut[] }>("GET", connections(organizationId))
  ).data;
}

export function getConnection(deps: CmsCommandDeps, organizationId: string, id: string) {
  return deps.calls.webhooks.call<CmsConnectionOut>("GET", connection(organizationId, id));
}

export async function createConnection(
  deps: CmsCommandDeps,
  organizationId: string,
  input: CmsConnectionCreateIn,
  actor = "admin",
): Promise<CmsConnectionOut> {
  const created = await deps.calls.webhooks.call<CmsConnectionOut>(
    "POST",
    connections(organizationId),
    { body: input },
  );
  await audit(deps.db, organizationId, "cms_connection.created", created.id, actor);
  return created;
}

export async function updateConnection(
  deps: CmsCommandDeps,
  organizationId: string,
  id: string,
  input: CmsConnectionUpdateIn,
  actor = "admin",
): Promise<CmsConnectionOut> {
  const updated = await deps.calls.webhooks.call<CmsConnectionOut>(
    "PATCH",
    connection(organizationId, id),
    { body: input },
  );
  await audit(deps.db, organizationId, "cms_connection.updated", updated.id, actor);
  return updated;
}

export async function deleteConnection(
  deps: CmsCommandDeps,
  organizationId: string,
  id: string,
  actor = "admin",
): Promise<CmsConnectionOut> {
  const deleted = await deps.calls.webhooks.call<CmsConnectionOut>(
    "DELETE",
    connection(organizationId, id),
  );
  await audit(deps.db, organizationId, "cms_connection.deleted", deleted.id, actor);
  return deleted;
}

export function checkConnection(
  deps: CmsCommandDeps,
  organizationId: string,
  id: string,
): Promise<CmsConnectionCheckOut> {
  return deps.calls.webhooks.call<CmsConnectionCheckOut>(
    "POST",
    `${connection(organizationId, id)}/check`,
  );
}

/** A story's writes into the organization's connections, newest first. */
export async function storyCmsWrites(
  deps: CmsCommandDeps,
  organizationId: string,
  storyId: string,
): Promise<CmsWriteOut[]> {
  return (
    await deps.calls.webhooks.call<{ data: CmsWriteOut[] }>(
      "GET",
      `/internal/v1/orgs/${organizationId}/stories/${encodeURIComponent(storyId)}/cms-writes`,
    )
  ).data;
}
