import type { Queryable } from "@newsroom/shared/db/index";
import { assets, assetVariants } from "@newsroom/shared/db/schema";
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { AssetRow, AssetVariantInfo } from "./model.ts";

const variantInfo = {
  assetId: assetVariants.assetId,
  organizationId: assetVariants.organizationId,
  name: assetVariants.name,
  contentType: assetVariants.contentType,
  width: assetVariants.width,
  height: assetVariants.height,
  bytes: assetVariants.bytes,
  createdAt: assetVariants.createdAt,
};

/** The organization's assets, newest first. */
export function listAssetRows(db: Queryable, organizationId: string, limit = 200) {
  return db
    .select()
    .from(assets)
    .where(eq(assets.organizationId, organizationId))
    .orderBy(desc(assets.createdAt), desc(assets.id))
    .limit(limit);
}

export async function findAssetRow(
  db: Queryable,
  organizationId: string,
  assetId: string,
): Promise<AssetRow | null> {
  const [row] = await db
    .select()
    .from(assets)
    .where(and(eq(assets.organizationId, organizationId), eq(assets.id, assetId)));
  return row ?? null;
}

/** Across organizations (labelled: a path that names only the asset): its organization. */
export async function organizationOfAsset(db: Queryable, assetId: string): Promise<string | null> {
  const [row] = await db
    .select({ organizationId: assets.organizationId })
    .from(assets)
    .where(eq(assets.id, assetId));
  return row?.organizationId ?? null;
}

/** The variants (without their bytes) of these assets, narrowest first. */
export function variantsOfAssets(
  db: Queryable,
  organizationId: string,
  assetIds: string[],
): Promise<AssetVariantInfo[]> {
  if (assetIds.length === 0) return Promise.resolve([]);
  return db
    .select(variantInfo)
    .from(assetVariants)
    .where(
      and(
        eq(assetVariants.organizationId, organizationId),
        inArray(assetVariants.assetId, assetIds),
      ),
    )
    .orderBy(asc(assetVariants.width), asc(assetVariants.contentType));
}

/** One variant with its bytes. */
export async function variantBytes(
  db: Queryable,
  organizationId: string,
  assetId: string,
  name: string,
) {
  const [row] = await db
    .select({ contentType: assetVariants.contentType, data: assetVariants.data })
    .from(assetVariants)
    .where(
      and(
        eq(assetVariants.organizationId, organizationId),
        eq(assetVariants.assetId, assetId),
        eq(assetVariants.name, name),
      ),
    );
  return row ?? null;
}
