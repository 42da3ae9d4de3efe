import type { Db } from "@newsroom/shared/db/index";
import { apiKeys } from "@newsroom/shared/db/schema";
import { desc, eq } from "drizzle-orm";
import { findOrganization } from "../resolve.ts";
import type { ApiKeyRow } from "./model.ts";

/** The organization's keys, newest first: records only, never a secret or a hash. */
export async function listApiKeys(db: Db, orgIdOrSlug: string): Promise<ApiKeyRow[]> {
  const org = await findOrganization(db, orgIdOrSlug);
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.organizationId, org.id))
    .orderBy(desc(apiKeys.createdAt))
    .limit(1000);
}
