import { type Html, html } from "./html.ts";

/** How wide an image shows: the page's column at most (see the public stylesheet's `main`). */
export const ARTICLE_IMAGE_SIZES = "(max-width: 50rem) 100vw, 50rem";
export const CARD_IMAGE_SIZES = "(max-width: 40rem) 100vw, 20rem";

/** An image as pages show it: an uploaded one carries its recorded size and its renditions. */
export interface ImageSource {
  url: string;
  alt: string;
  width?: number;
  height?: number;
  /** Renditions narrowest first, at immutable service-relative URLs. */
  variants?: { url: string; width: number }[];
}

/**
 * An image as `<img>`: an uploaded one with its recorded `width` and `height` (no layout shift)
 * and its WebP variants as `srcset`; one known only by URL as it is.
 */
export function imageTag(image: ImageSource, options: { sizes: string; lazy?: boolean }): Html {
  const variants = image.variants ?? [];
  const src = variants.at(-1)?.url ?? image.url;
  const srcset = variants.map((variant) => `${variant.url} ${variant.width}w`).join(", ");
  return html`<img src="${src}"${srcset ? html` srcset="${srcset}" sizes="${options.sizes}"` : ""}${image.width && image.height ? html` width="${String(image.width)}" height="${String(image.height)}"` : ""} alt="${image.alt}"${options.lazy === false ? "" : html` loading="lazy"`}>`;
}
