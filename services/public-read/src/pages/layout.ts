import { type Html, html, raw } from "@newsroom/shared/html";
import { iconDataUri } from "@newsroom/shared/icon";
import { type Brand, browsedAddress } from "./brand.ts";
import { newsletterForm, SIGN_UP_SEGMENT } from "./newsletter-form.ts";
import { feedAlternates } from "./site-feeds.ts";
import { STYLESHEET } from "./stylesheet.ts";
import { BACKGROUND, TEXT, themeOf } from "./theme.ts";

/** A `<link rel="alternate">` in the head (feeds). */
export interface Alternate {
  type: string;
  title: string;
  href: string;
}

export interface PageParts {
  brand: Brand;
  /** A preview's banner: the page is marked as one and never indexed. */
  preview?: string;
  /** The `<title>`, without the newsroom's name. */
  title: string;
  description: string;
  /** This page's canonical address. */
  canonical: string;
  main: Html;
  /** OpenGraph type: `website`, or `article` for an item. */
  ogType?: "website" | "article";
  /** A cleared image for the cards. */
  image?: { url: string; alt: string } | null;
  /** Structured data (schema.org), written as JSON-LD. */
  jsonLd?: Record<string, unknown>;
  /** Feed autodiscovery and other alternates. */
  alternates?: Alternate[];
  /** Where a newsletter sign-up without JavaScript comes back to. */
  returnTo?: string;
}

/**
 * `url` made absolute against `base` (an upload's address is service-relative, `/assets/...`):
 * cards and structured data are read by crawlers away from the page, so they need the full one.
 */
export function absoluteUrl(url: string, base: string): string {
  return new URL(url, base).href;
}

/** JSON inside `<script>`: `<` escaped so no value can close the element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** The whole document: head tags, skip link, banner, main, the newsletter form and footer. */
export function layout(parts: PageParts): Html {
  const { brand } = parts;
  const theme = themeOf(brand.accent);
  const title = parts.title === brand.name ? brand.name : `${parts.title} | ${brand.name}`;
  const image = parts.image
    ? { url: absoluteUrl(parts.image.url, parts.canonical), alt: parts.image.alt }
    : null;
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${parts.description}">
<link rel="canonical" href="${parts.canonical}">
<link rel="icon" href="${iconDataUri(brand.icon)}" type="image/svg+xml">
${brand.live && !parts.preview ? "" : raw('<meta name="robots" content="noindex">\n')}<meta property="og:site_name" content="${brand.name}">
<meta property="og:type" content="${parts.ogType ?? "website"}">
<meta property="og:title" content="${parts.title}">
<meta property="og:description" content="${parts.description}">
<meta property="og:url" content="${parts.canonical}">
${image ? html`<meta property="og:image" content="${image.url}">\n<meta property="og:image:alt" content="${image.alt}">\n` : ""}<meta name="twitter:card" content="${image ? "summary_large_image" : "summary"}">
<meta name="twitter:title" content="${parts.title}">
<meta name="twitter:description" content="${parts.description}">
${image ? html`<meta name="twitter:image" content="${image.url}">\n` : ""}${[...feedAlternates({ title: brand.name, home: brand.home }), ...(parts.alternates ?? [])].map((alt) => html`<link rel="alternate" type="${alt.type}" title="${alt.title}" href="${alt.href}">\n`)}<style>:root{--accent:${theme.accent};--on-accent:${theme.onAccent};--bg:${BACKGROUND};--text:${TEXT}}${raw(STYLESHEET)}</style>
${parts.jsonLd ? html`<script type="application/ld+json">${raw(jsonForScript(parts.jsonLd))}</script>\n` : ""}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${parts.preview ? html`<aside class="preview-banner" aria-label="Preview"><p><strong>${parts.preview}</strong></p></aside>\n` : ""}<header class="banner">
<a class="brand" href="${brand.home}">${brand.logo ? html`<img src="${brand.logo.url}" alt="" height="40">` : ""}<span>${brand.name}</span></a>
</header>
<main id="main" tabindex="-1">
${parts.main}
</main>
${brand.newsletter ? newsletterForm(brand.newsletter, parts.returnTo ?? browsedAddress(parts.canonical, brand), browsedAddress(`${brand.home}/${SIGN_UP_SEGMENT}`, brand)) : ""}
<footer class="footer"><p>Published by ${brand.publisher}</p></footer>
</body>
</html>
`;
  return document;
}
