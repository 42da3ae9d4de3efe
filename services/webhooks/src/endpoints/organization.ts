import type { Queryable } from "@newsroom/shared/db/index";
import { organizations } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";

/**
 * The id of the organization named in a path by its id or its slug, as the workspace (which
 * writes organizations) resolves it; 404 when there is none.
 */
export async function organizationIdOf(db: Queryable, idOrSlug: string): Promise<string> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(isUuid(idOrSlug) ? eq(organizations.id, idOrSlug) : eq(organizations.slug, idOrSlug));
  if (!row) throw new ApiError("not_found", "No such organization.");
  return row.id;
}
