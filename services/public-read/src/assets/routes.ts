import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import type { ReadDeps } from "../deps.ts";
import { clearedVariantByName } from "./store.ts";

/** Public variants live here on every host that serves pages (the gateway routes it). */
export const ASSET_PATH_PREFIX = "/assets/";

/** A variant's name: `{sha256 prefix}-{width}.{ext}`, as the workspace makes them. */
const VARIANT_NAME = /^[0-9a-f]{20}-[1-9][0-9]{0,4}\.(?:webp|jpg|png|avif)$/;

/** A name is its content: the answer never changes, so anyone may keep it for a year. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

export function isAssetPath(path: string): boolean {
  return path.startsWith(ASSET_PATH_PREFIX);
}

/**
 * The bytes of a cleared asset's variant. An uncleared asset's (or an unknown name) is 404,
 * whoever asks: uploads are shown before clearing only in the workspace, to its members.
 */
export function assetsRoutes(deps: ReadDeps) {
  return new Elysia().get("/assets/:name", async ({ params }) => {
    const found = VARIANT_NAME.test(params.name)
      ? await clearedVariantByName(deps.db, params.name)
      : null;
    if (!found) throw new ApiError("not_found", "No such asset.");
    return new Response(found.data as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": found.contentType,
        "cache-control": IMMUTABLE_CACHE_CONTROL,
        etag: `"${params.name}"`,
        "x-content-type-options": "nosniff",
        "cross-origin-resource-policy": "cross-origin",
      },
    });
  });
}
