import type { Queryable } from "@newsroom/shared/db/index";
import type { AssetOut } from "../content/model.ts";
import { ASSET_PATH_PREFIX } from "./routes.ts";
import { clearedVariantsOf } from "./store.ts";

/** What the public records need to know of a cleared asset. */
export interface ClearedAssetFacts {
  id: string;
  url: string;
  alt: string;
  kind: AssetOut["kind"];
  width: number | null;
  height: number | null;
}

/**
 * The public records of cleared assets, by id: an uploaded image gains its recorded size and
 * its WebP variants (for `srcset`); an asset known only by URL stays as it was.
 */
export async function publicAssetsById(
  db: Queryable,
  organizationId: string,
  facts: ClearedAssetFacts[],
): Promise<Map<string, AssetOut>> {
  const variants = await clearedVariantsOf(db, organizationId, [
    ...new Set(facts.map((fact) => fact.id)),
  ]);
  const out = new Map<string, AssetOut>();
  for (const fact of facts) {
    const own = variants.filter(
      (variant) => variant.assetId === fact.id && variant.contentType === "image/webp",
    );
    out.set(fact.id, {
      url: fact.url,
      alt: fact.alt,
      kind: fact.kind,
      ...(fact.width && fact.height ? { width: fact.width, height: fact.height } : {}),
      ...(own.length > 0
        ? {
            variants: own.map((variant) => ({
              url: `${ASSET_PATH_PREFIX}${variant.name}`,
              content_type: variant.contentType,
              width: variant.width,
              height: variant.height,
            })),
          }
        : {}),
    });
  }
  return out;
}
