import type { Queryable } from "@newsroom/shared/db/index";
import { assets, assetVariants } from "@newsroom/shared/db/schema";
import { and, asc, eq, inArray } from "drizzle-orm";

/**
 * Across organizations (labelled: a public variant's address names its content, not its
 * organization): the bytes of a variant with this name whose asset is cleared. A name is
 * content-hashed, so any cleared asset's variant of that name is the same bytes.
 */
export async function clearedVariantByName(db: Queryable, name: string) {
  const [row] = await db
    .select({ contentType: assetVariants.contentType, data: assetVariants.data })
    .from(assetVariants)
    .innerJoin(assets, eq(assets.id, assetVariants.assetId))
    .where(and(eq(assetVariants.name, name), eq(assets.cleared, true)))
    .limit(1);
  return row ?? null;
}

/** The variants (no bytes) of these cleared assets of the organization, narrowest first. */
export function clearedVariantsOf(db: Queryable, organizationId: string, assetIds: string[]) {
  if (assetIds.length === 0) return Promise.resolve([]);
  return db
    .select({
      assetId: assetVariants.assetId,
      name: assetVariants.name,
      contentType: assetVariants.contentType,
      width: assetVariants.width,
      height: assetVariants.height,
    })
    .from(assetVariants)
    .innerJoin(assets, eq(assets.id, assetVariants.assetId))
    .where(
      and(
        eq(assetVariants.organizationId, organizationId),
        eq(assets.cleared, true),
        inArray(assetVariants.assetId, assetIds),
      ),
    )
    .orderBy(asc(assetVariants.width));
}
