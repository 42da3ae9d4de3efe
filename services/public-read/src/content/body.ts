import {
  assetReferences,
  findReferencedAssets,
  namesAsset,
  stringsOf,
  unclearedAssetUrls,
  withoutUrls,
} from "@newsroom/shared/asset-urls";
import type { Queryable } from "@newsroom/shared/db/index";
import { publicAssetsById } from "../assets/public-assets.ts";

type Block = Record<string, unknown>;

/**
 * Makes a stored body safe to publish: a block that is about an asset not cleared for
 * publication (a string of it is that asset's id or URL), or that names an asset id not the
 * organization's, is dropped; an uncleared asset's URL written inside any other text (a
 * sentence, a link, markdown) is removed from it; a block naming a cleared asset by `asset_id`
 * gets that asset as `asset` in its place (internal ids do not leave).
 */
export async function publicBodies(
  db: Queryable,
  organizationId: string,
  bodies: Block[][],
): Promise<Block[][]> {
  const refs = assetReferences(bodies);
  if (refs.ids.size === 0 && refs.urls.size === 0) return bodies;
  const found = await findReferencedAssets(db, organizationId, refs);
  const byId = new Map(found.map((asset) => [asset.id, asset]));
  const cleared = await publicAssetsById(
    db,
    organizationId,
    found.filter((asset) => asset.cleared),
  );
  const uncleared = found.filter((asset) => !asset.cleared);
  const unclearedUrls = new Set(uncleared.map((asset) => asset.url.toLowerCase()));
  const unclearedIds = new Set(uncleared.map((asset) => asset.id));
  return bodies.map((body) =>
    body.flatMap((block) => {
      if (stringsOf(block).some((s) => namesAsset(s, unclearedUrls, unclearedIds))) return [];
      const clean = withoutUrls(block, [...unclearedUrls]);
      const assetId = clean.asset_id;
      if (assetId === undefined) return [clean];
      const asset = typeof assetId === "string" ? byId.get(assetId.toLowerCase()) : undefined;
      if (!asset?.cleared) return [];
      const { asset_id: _internal, ...rest } = clean;
      return [{ ...rest, asset: cleared.get(asset.id) }];
    }),
  );
}

/**
 * Titles and summaries safe to publish: an uncleared asset's URL written in them is removed.
 * Reads the database only when a URL is written in them.
 */
export async function publicTexts<T extends { title: string | null; summary: string | null }>(
  db: Queryable,
  organizationId: string,
  rows: T[],
): Promise<T[]> {
  const texts = rows.map((row) => [row.title, row.summary]);
  const urls = await unclearedAssetUrls(db, organizationId, texts);
  if (urls.length === 0) return rows;
  return rows.map((row) => ({
    ...row,
    title: row.title === null ? null : withoutUrls(row.title, urls),
    summary: row.summary === null ? null : withoutUrls(row.summary, urls),
  }));
}

/** The readable text of a body: every `text` (and `caption`, `items`) joined, for search. */
export function plainText(body: Block[]): string {
  const parts: string[] = [];
  const walk = (value: unknown, key: string | null) => {
    if (typeof value === "string") {
      if (key === "text" || key === "caption" || key === "items" || key === "quote") {
        parts.push(value);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, k);
    }
  };
  for (const block of body) walk(block, null);
  return parts
    .join("\n")
    .replace(/[ \t]+/g, " ")
    .trim();
}
