import type { Db, Queryable } from "@newsroom/shared/db/index";
import { assets, assetVariants } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid, newId } from "@newsroom/shared/ids";
import { and, eq } from "drizzle-orm";
import { audit } from "../audit.ts";
import { processImage } from "./images.ts";
import { type AssetRow, type AssetVariantInfo, PUBLIC_ASSET_PREFIX } from "./model.ts";
import { findAssetRow, listAssetRows, organizationOfAsset, variantsOfAssets } from "./store.ts";

export interface AssetUpload {
  bytes: Uint8Array;
  alt: string;
  credit?: string;
  rights_holder?: string;
}

export interface AssetWithVariants {
  row: AssetRow;
  variants: AssetVariantInfo[];
}

/**
 * Stores an uploaded image, uncleared: its variants (metadata removed) and its record. Nothing is
 * stored when the image is refused.
 */
export async function uploadAsset(
  db: Db,
  organizationId: string,
  upload: AssetUpload,
  actor = "admin",
): Promise<AssetWithVariants> {
  const image = await processImage(upload.bytes);
  const id = newId();
  const largestWebp = image.variants.filter((v) => v.contentType === "image/webp").at(-1);
  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(assets)
      .values({
        id,
        organizationId,
        url: `${PUBLIC_ASSET_PREFIX}${largestWebp?.name ?? image.variants[0]!.name}`,
        alt: upload.alt,
        kind: "image",
        cleared: false,
        contentType: image.contentType,
        width: image.width,
        height: image.height,
        bytes: upload.bytes.byteLength,
        credit: upload.credit ?? null,
        rightsHolder: upload.rights_holder ?? null,
        sha256: image.sha256,
        uploadedBy: actor,
      })
      .returning();
    await tx.insert(assetVariants).values(
      image.variants.map((variant) => ({
        assetId: id,
        organizationId,
        name: variant.name,
        contentType: variant.contentType,
        width: variant.width,
        height: variant.height,
        bytes: variant.data.byteLength,
        data: variant.data,
      })),
    );
    await audit(tx, organizationId, "asset.upload", id, actor);
    return inserted!;
  });
  return { row, variants: await variantsOfAssets(db, organizationId, [id]) };
}

/** Clears an asset for publication (again: no change, the first clearing stands). */
export async function clearAsset(
  db: Db,
  organizationId: string,
  assetId: string,
  actor = "admin",
): Promise<AssetWithVariants> {
  const existing = await getAsset(db, organizationId, assetId);
  if (existing.row.cleared) return existing;
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(assets)
      .set({ cleared: true, clearedBy: actor, clearedAt: new Date() })
      .where(and(eq(assets.organizationId, organizationId), eq(assets.id, assetId)))
      .returning();
    await audit(tx, organizationId, "asset.clear", assetId, actor);
    return updated!;
  });
  return { row, variants: existing.variants };
}

export async function getAsset(
  db: Queryable,
  organizationId: string,
  assetId: string,
): Promise<AssetWithVariants> {
  const row = isUuid(assetId) ? await findAssetRow(db, organizationId, assetId) : null;
  if (!row) throw new ApiError("not_found", "No such asset.");
  return { row, variants: await variantsOfAssets(db, organizationId, [row.id]) };
}

export async function listAssets(
  db: Queryable,
  organizationId: string,
): Promise<AssetWithVariants[]> {
  const rows = await listAssetRows(db, organizationId);
  const variants = await variantsOfAssets(
    db,
    organizationId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    row,
    variants: variants.filter((variant) => variant.assetId === row.id),
  }));
}

/** The organization an asset belongs to, for paths that name the asset alone; else 404. */
export async function organizationIdOfAsset(db: Queryable, assetId: string): Promise<string> {
  const organizationId = isUuid(assetId) ? await organizationOfAsset(db, assetId) : null;
  if (!organizationId) throw new ApiError("not_found", "No such asset.");
  return organizationId;
}
