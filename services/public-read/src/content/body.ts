import type { Queryable } from "@newsroom/shared/db/index";
import { isUuid } from "@newsroom/shared/ids";
import type { AssetOut } from "./model.ts";
import { assetsReferenced } from "./store.ts";

type Block = Record<string, unknown>;

/**
 * Makes a stored body safe to publish: a block that references an asset not cleared for
 * publication (by id or by URL), or an asset id that is not the organization's, is dropped;
 * a block naming a cleared asset by `asset_id` gets that asset as `asset` in its place (internal
 * ids do not leave).
 */
export async function publicBodies(
  db: Queryable,
  organizationId: string,
  bodies: Block[][],
): Promise<Block[][]> {
  const ids = new Set<string>();
  const urls = new Set<string>();
  for (const body of bodies) {
    for (const block of body) collect(block, ids, urls);
  }
  if (ids.size === 0 && urls.size === 0) return bodies;
  const found = await assetsReferenced(db, organizationId, [...ids], [...urls]);
  const byId = new Map(found.map((asset) => [asset.id, asset]));
  const unclearedUrls = new Set(found.filter((a) => !a.cleared).map((a) => a.url));
  const unclearedIds = new Set(found.filter((a) => !a.cleared).map((a) => a.id));
  return bodies.map((body) =>
    body.flatMap((block) => {
      const strings: string[] = [];
      stringsOf(block, strings);
      if (strings.some((s) => unclearedUrls.has(s) || unclearedIds.has(s.toLowerCase()))) {
        return [];
      }
      const assetId = block.asset_id;
      if (assetId === undefined) return [block];
      const asset = typeof assetId === "string" ? byId.get(assetId.toLowerCase()) : undefined;
      if (!asset?.cleared) return [];
      const out: AssetOut = { url: asset.url, alt: asset.alt, kind: asset.kind };
      const { asset_id: _internal, ...rest } = block;
      return [{ ...rest, asset: out }];
    }),
  );
}

function collect(value: unknown, ids: Set<string>, urls: Set<string>): void {
  const strings: string[] = [];
  stringsOf(value, strings);
  for (const s of strings) {
    if (isUuid(s)) ids.add(s.toLowerCase());
    else if (/^https?:\/\//i.test(s) && s.length <= 2048) urls.add(s);
  }
}

function stringsOf(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value && typeof value === "object") {
    for (const item of Object.values(value)) stringsOf(item, out);
  }
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
