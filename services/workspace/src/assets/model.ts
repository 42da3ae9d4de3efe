import { membersAssetPath, PUBLIC_ASSET_PREFIX } from "@newsroom/shared/asset-urls";
import type { assets, assetVariants } from "@newsroom/shared/db/schema";
import { iso } from "@newsroom/shared/records";
import { t } from "elysia";

export type AssetRow = typeof assets.$inferSelect;
export type AssetVariantInfo = Omit<typeof assetVariants.$inferSelect, "data">;

/**
 * The text fields of an upload (the web form is decoded with this schema too). Alt text is
 * required: an image is not used without it.
 */
export const AssetUploadIn = t.Object({
  alt: t.String({ minLength: 1, maxLength: 300 }),
  credit: t.Optional(t.String({ maxLength: 300 })),
  rights_holder: t.Optional(t.String({ maxLength: 300 })),
});

export { membersAssetPath as privateVariantPath, PUBLIC_ASSET_PREFIX };

/**
 * The asset record. Its `url` and the variants' `url` are the public addresses, which answer
 * 404 until the asset is cleared.
 */
export function assetOut(row: AssetRow, variants: AssetVariantInfo[]) {
  return {
    object: "asset" as const,
    id: row.id,
    organization_id: row.organizationId,
    kind: row.kind,
    cleared: row.cleared,
    content_type: row.contentType,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    alt: row.alt,
    credit: row.credit,
    rights_holder: row.rightsHolder,
    sha256: row.sha256,
    url: row.url,
    variants: variants.map((variant) => ({
      url: `${PUBLIC_ASSET_PREFIX}${variant.name}`,
      content_type: variant.contentType,
      width: variant.width,
      height: variant.height,
      bytes: variant.bytes,
    })),
    uploaded_by: row.uploadedBy,
    cleared_by: row.clearedBy,
    cleared_at: iso(row.clearedAt),
    created_at: iso(row.createdAt),
  };
}
