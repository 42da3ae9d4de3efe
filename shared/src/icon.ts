import { escapeHtml } from "./html.ts";

/**
 * A site icon drawn from a colour and an initial: a rounded square in the colour with the
 * initial in black or white. Pages name it as a `data:` URI (no request, cached with the page);
 * `/favicon.ico` answers the same SVG, which browsers accept there.
 */
export interface IconSpec {
  /** `#rrggbb`, already readable (the newsroom's theme accent). */
  colour: string;
  /** One character. */
  initial: string;
  /** The initial's colour on `colour`. */
  ink: string;
}

/**
 * The house icon: `/favicon.ico` on the service's host (which its index page, the API reference
 * and the workspace name) and the house newsroom's pages.
 */
export const HOUSE_ICON: IconSpec = { colour: "#1d4ed8", initial: "N", ink: "#ffffff" };

export const ICON_CONTENT_TYPE = "image/svg+xml";
/** A day: an organization's accent or name may change, and `/favicon.ico` has no version. */
export const ICON_CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

/** The first letter or digit of a name, upper-cased; `N` when it has none. */
export function initialOf(name: string): string {
  const match = /[\p{L}\p{N}]/u.exec(name);
  return match ? match[0].toLocaleUpperCase("en") : "N";
}

export function iconSvg(icon: IconSpec): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${escapeHtml(icon.colour)}"/><text x="32" y="45" text-anchor="middle" font-family="system-ui,Arial,sans-serif" font-size="40" font-weight="700" fill="${escapeHtml(icon.ink)}">${escapeHtml(icon.initial)}</text></svg>`;
}

/** The icon as a `<link rel="icon">` address. */
export function iconDataUri(icon: IconSpec): string {
  return `data:image/svg+xml,${encodeURIComponent(iconSvg(icon))}`;
}

/** `/favicon.ico`'s answer (GET; HEAD is made from it). */
export function iconResponse(icon: IconSpec): Response {
  return new Response(iconSvg(icon), {
    headers: {
      "content-type": ICON_CONTENT_TYPE,
      "cache-control": ICON_CACHE_CONTROL,
      "x-content-type-options": "nosniff",
    },
  });
}
