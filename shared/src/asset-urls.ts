import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Queryable } from "./db/index.ts";
import { assets } from "./db/schema.ts";
import { isUuid } from "./ids.ts";

/**
 * Assets named inside published text. An asset not cleared for publication must not leave through
 * any public answer, whether a string is its URL or a sentence, a link or markdown-like text holds
 * it: the public item, search documents and the client API's feeds all clean their text here.
 */

/** Where public-read serves an uploaded variant by name, once its asset is cleared (404 before). */
export const PUBLIC_ASSET_PREFIX = "/assets/";

/** The workspace's address of an uploaded variant: members of the organization only, never cached. */
export function membersAssetPath(assetId: string, name: string): string {
  return `/app/assets/${assetId}/${name}`;
}

/**
 * Where a page before publication loads an asset: an uncleared upload from the workspace's
 * members-only route (its public URL answers 404 until it is cleared), any other at its URL.
 */
function urlBeforePublication(asset: { id: string; url: string; cleared: boolean }): string {
  if (asset.cleared || !asset.url.startsWith(PUBLIC_ASSET_PREFIX)) return asset.url;
  return membersAssetPath(asset.id, asset.url.slice(PUBLIC_ASSET_PREFIX.length));
}

const URL_START = /https?:\/\//gi;
/** Where a URL written inside text ends: space, quotes, brackets and markup. */
const URL_END = /[\s"'<>()[\]{}|\\^`]/;
/** Punctuation that may close a sentence right after a URL. */
const TRAILING = /[.,;:!?*_~]+$/;
const URL_MAX = 2048;

export interface AssetReferences {
  /** Strings that are a UUID as a whole (lower-case): possible asset ids. */
  ids: Set<string>;
  /** Every URL written anywhere in the strings, lower-case, with and without closing punctuation. */
  urls: Set<string>;
}

/** Every string of a value (body blocks, titles, summaries), however deep. */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value && typeof value === "object") {
    for (const item of Object.values(value)) stringsOf(item, out);
  }
  return out;
}

/** The asset ids and URLs a value may name, for one lookup. */
export function assetReferences(values: unknown[]): AssetReferences {
  const refs: AssetReferences = { ids: new Set(), urls: new Set() };
  for (const text of stringsOf(values)) {
    if (isUuid(text)) refs.ids.add(text.toLowerCase());
    // Each start is its own candidate, so a URL inside another URL's query is found too.
    for (const match of text.matchAll(URL_START)) {
      const rest = text.slice(match.index, match.index + URL_MAX);
      const end = rest.search(URL_END);
      const url = (end === -1 ? rest : rest.slice(0, end)).toLowerCase();
      refs.urls.add(url);
      refs.urls.add(url.replace(TRAILING, ""));
    }
  }
  return refs;
}

export interface ReferencedAsset {
  id: string;
  url: string;
  alt: string;
  kind: "image" | "video" | "document" | "logo";
  cleared: boolean;
  /** An uploaded image's recorded size. */
  width: number | null;
  height: number | null;
}

/** The organization's assets named by these references (URLs compared case-insensitively). */
export async function findReferencedAssets(
  db: Queryable,
  organizationId: string,
  refs: AssetReferences,
): Promise<ReferencedAsset[]> {
  if (refs.ids.size === 0 && refs.urls.size === 0) return [];
  const match: SQL[] = [];
  if (refs.ids.size > 0) match.push(inArray(assets.id, [...refs.ids]));
  if (refs.urls.size > 0) {
    // One JSON parameter, whatever the number of URLs and whatever characters they hold.
    match.push(
      sql`lower(${assets.url}) in (select jsonb_array_elements_text(${JSON.stringify([...refs.urls])}::jsonb))`,
    );
  }
  return db
    .select({
      id: assets.id,
      url: assets.url,
      alt: assets.alt,
      kind: assets.kind,
      cleared: assets.cleared,
      width: assets.width,
      height: assets.height,
    })
    .from(assets)
    .where(and(eq(assets.organizationId, organizationId), or(...match)));
}

/**
 * A copy of a value with every occurrence of these URLs (compared case-insensitively) removed
 * from every string in it.
 */
export function withoutUrls<T>(value: T, urls: readonly string[]): T {
  if (urls.length === 0) return value;
  // Longest first, so a URL that begins another is not removed from inside it.
  const longestFirst = [...urls].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    longestFirst.map((url) => url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
    "gi",
  );
  const clean = (current: unknown): unknown => {
    if (typeof current === "string") return current.replace(pattern, "");
    if (Array.isArray(current)) return current.map(clean);
    if (current && typeof current === "object") {
      return Object.fromEntries(Object.entries(current).map(([key, item]) => [key, clean(item)]));
    }
    return current;
  };
  return clean(value) as T;
}

/**
 * The URLs (lower-case) of the organization's uncleared assets written anywhere in these values;
 * no query when no URL is written in them.
 */
export async function unclearedAssetUrls(
  db: Queryable,
  organizationId: string,
  values: unknown[],
): Promise<string[]> {
  const { urls } = assetReferences(values);
  if (urls.size === 0) return [];
  const found = await findReferencedAssets(db, organizationId, { ids: new Set(), urls });
  return found.filter((asset) => !asset.cleared).map((asset) => asset.url.toLowerCase());
}

/** Whether a string is an uncleared asset as a whole: its URL or its id. */
export function namesAsset(text: string, urls: ReadonlySet<string>, ids: ReadonlySet<string>) {
  const lower = text.toLowerCase();
  return urls.has(lower) || ids.has(lower);
}

/**
 * A body as it reads before publication (the preview and the review page): a block naming an
 * asset of the organization by `asset_id` gets that asset, cleared or not (the renderer marks an
 * uncleared one, loaded from the workspace's members-only route); an image pasted by the URL of
 * an uncleared asset is marked and loaded the same way; a block
 * naming an id that is not the organization's asset is left out.
 */
export async function bodyBeforePublication(
  db: Queryable,
  organizationId: string,
  body: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const refs = assetReferences([body]);
  const found = await findReferencedAssets(db, organizationId, refs);
  if (found.length === 0) return body.filter((block) => block.asset_id === undefined);
  const byId = new Map(found.map((asset) => [asset.id, asset]));
  const byUrl = new Map(found.map((asset) => [asset.url.toLowerCase(), asset]));
  return body.flatMap((block) => {
    if (block.asset_id !== undefined) {
      const id = typeof block.asset_id === "string" ? block.asset_id.toLowerCase() : "";
      const asset = byId.get(id);
      if (!asset) return [];
      const url = urlBeforePublication(asset);
      return [{ ...block, asset: { url, alt: asset.alt, cleared: asset.cleared } }];
    }
    const pasted = block.type === "image" && typeof block.url === "string" ? block.url : null;
    const asset = pasted ? byUrl.get(pasted.toLowerCase()) : undefined;
    if (!asset || asset.cleared) return [block];
    return [
      {
        ...block,
        asset: {
          url: urlBeforePublication(asset),
          alt: String(block.alt ?? asset.alt),
          cleared: false,
        },
      },
    ];
  });
}
