import type { Db } from "@newsroom/shared/db/index";
import { oauthClients } from "@newsroom/shared/db/schema";
import { and, eq } from "drizzle-orm";
import { audit, personActor } from "../audit.ts";

/**
 * Deletes an organization's application (its owners and admins do: the caller checks). Its
 * grants, codes, device authorizations and tokens go with it (the foreign keys cascade), so every
 * token it holds stops working at once; decisions it recorded keep their place in the history
 * without it. False when the organization has no such application.
 */
export async function deleteOAuthClient(
  db: Db,
  organizationId: string,
  id: string,
  deletedBy: string | null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(oauthClients)
      .where(and(eq(oauthClients.organizationId, organizationId), eq(oauthClients.id, id)))
      .returning({ id: oauthClients.id, name: oauthClients.name });
    if (!row) return false;
    await audit(
      tx,
      organizationId,
      // The row is gone: the audit log names the application in the action.
      `oauth_client.delete:${row.name}`,
      row.id,
      deletedBy ? personActor(deletedBy) : "admin",
    );
    return true;
  });
}
