import { escapeHtml } from "@newsroom/shared/html";
import type { StoryBlock, StoryBody } from "@newsroom/shared/story-body";
import { inlineMarkup } from "@newsroom/shared/story-body-html";
import type { RemoteImage } from "../connector.ts";

/**
 * What an author typed, escaped, with only the inline markup the public page knows
 * (`**strong**`, `*em*`, `[words](https://...)`) made markup, by the same renderer.
 */
function words(text: string): string {
  return inlineMarkup(text).value;
}

/** A block's attributes as WordPress serializes them (`--`, `<`, `>` never left as such). */
function attributes(attrs: Record<string, unknown>): string {
  if (Object.keys(attrs).length === 0) return "";
  const json = JSON.stringify(attrs)
    .replace(/--/g, "\\u002d\\u002d")
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026");
  return ` ${json}`;
}

function block(name: string, inner: string, attrs: Record<string, unknown> = {}): string {
  return `<!-- wp:${name}${attributes(attrs)} -->\n${inner}\n<!-- /wp:${name} -->`;
}

const paragraph = (html: string, attrs: Record<string, unknown> = {}, className?: string) =>
  block("paragraph", `<p${className ? ` class="${className}"` : ""}>${html}</p>`, attrs);

/** Only http(s) addresses become links or images; anything else is dropped. */
function safeUrl(url: string): string | null {
  return /^https?:\/\//i.test(url) ? escapeHtml(url) : null;
}

export interface BlockMarkupInput {
  body: StoryBody;
  images: ReadonlyMap<string, RemoteImage>;
  canonicalUrl: string;
  /** Carried as the class of the closing paragraph: what `findByMarker` searches for. */
  marker: string;
}

/**
 * A story body as WordPress block markup (the Gutenberg comments of WordPress 6.1): paragraphs,
 * headings, lists (with their list-item blocks), quotes, images (a cleared asset at its media
 * library address, with the attachment id), embeds as a link. Every piece of text and every
 * address is escaped; the inline markup of the public page is kept. A closing paragraph links back to the canonical newsroom page; its class
 * carries the marker.
 */
export function wordPressBlocks(input: BlockMarkupInput): string {
  const parts = input.body.map((b) => blockMarkup(b, input.images)).filter((p) => p !== null);
  const canonical = escapeHtml(input.canonicalUrl);
  const className = `newsroom-source ${input.marker}`;
  parts.push(
    paragraph(
      `Originally published at <a href="${canonical}">${canonical}</a>.`,
      { className },
      className,
    ),
  );
  return parts.join("\n\n");
}

function blockMarkup(b: StoryBlock, images: ReadonlyMap<string, RemoteImage>): string | null {
  switch (b.type) {
    case "paragraph":
      return paragraph(words(b.text).replace(/\r?\n/g, "<br>"));
    case "heading": {
      const level = b.level ?? 2;
      return block(
        "heading",
        `<h${level}>${words(b.text)}</h${level}>`,
        level === 2 ? {} : { level },
      );
    }
    case "list": {
      const tag = b.ordered ? "ol" : "ul";
      const items = b.items.map((item) => block("list-item", `<li>${words(item)}</li>`)).join("\n");
      return block("list", `<${tag}>${items}</${tag}>`, b.ordered ? { ordered: true } : {});
    }
    case "quote": {
      const cite = b.attribution ? `<cite>${escapeHtml(b.attribution)}</cite>` : "";
      return block(
        "quote",
        `<blockquote class="wp-block-quote">${paragraph(words(b.text))}${cite}</blockquote>`,
      );
    }
    case "image": {
      const caption = b.caption
        ? `<figcaption class="wp-element-caption">${words(b.caption)}</figcaption>`
        : "";
      const alt = escapeHtml(b.alt ?? "");
      if ("asset_id" in b) {
        // Only a cleared asset the writer put into the media library is shown.
        const image = images.get(b.asset_id);
        const src = image ? safeUrl(image.url) : null;
        if (!image || !src) return null;
        const id = Number(image.id);
        return block(
          "image",
          `<figure class="wp-block-image"><img src="${src}" alt="${alt}" class="wp-image-${id}"/>${caption}</figure>`,
          { id },
        );
      }
      const src = safeUrl(b.url);
      if (!src) return null;
      return block(
        "image",
        `<figure class="wp-block-image"><img src="${src}" alt="${alt}"/>${caption}</figure>`,
      );
    }
    case "embed": {
      const href = safeUrl(b.url);
      if (!href) return null;
      return paragraph(`<a href="${href}">${b.caption ? escapeHtml(b.caption) : href}</a>`);
    }
  }
}
