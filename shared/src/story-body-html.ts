import { escapeHtml, type Html, html, raw } from "./html.ts";
import { ARTICLE_IMAGE_SIZES, type ImageSource, imageTag } from "./image-tag.ts";

type Block = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** `[words](https://...)`: only http and https addresses become links. */
const LINK = /\[([^\]\n]+)\]\((https?:\/\/[^\s()<>]+)\)/g;

/** Escaped text with `**strong**` and `*emphasis*` marked up (on text already escaped). */
function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*([^*\s](?:[^*\n]*[^*\s])?)\*\*/g, "<strong>$1</strong>")
    .replace(/\*([^*\s](?:[^*\n]*[^*\s])?)\*/g, "<em>$1</em>");
}

/**
 * The authors' inline markup as HTML: the text is escaped first, then `**strong**`,
 * `*emphasis*` and `[words](https://address)` are marked up. Nothing an author types becomes
 * markup otherwise: `<script>` stays text, and a link to anything but http(s) stays text.
 */
export function inlineMarkup(value: string): Html {
  let out = "";
  let last = 0;
  for (const match of value.matchAll(LINK)) {
    out += emphasis(escapeHtml(value.slice(last, match.index)));
    out += `<a href="${escapeHtml(match[2]!)}" rel="noopener">${emphasis(escapeHtml(match[1]!))}</a>`;
    last = match.index + match[0].length;
  }
  out += emphasis(escapeHtml(value.slice(last)));
  return raw(out);
}

/** An image's asset as the renderer takes it; `cleared: false` only ever reaches a preview. */
export interface RenderedAsset extends Partial<ImageSource> {
  cleared?: boolean;
}

/**
 * A story body as readers see it: the public item page, the workspace's preview and its review
 * page all render with this. A public body is already cleared (`publicBodies` dropped every
 * block about an uncleared asset); a preview's uncleared image is shown marked. Headings start
 * at level 2 under the page's title; a block of a shape not known here is left out.
 */
export function renderBody(blocks: Block[]): Html {
  return html`${blocks.map(renderBlock)}`;
}

function renderBlock(block: Block): Html | string {
  switch (block.type) {
    case "paragraph":
      return html`<p>${inlineMarkup(text(block.text))}</p>\n`;
    case "heading":
      return headingHtml(
        typeof block.level === "number" ? block.level : 2,
        inlineMarkup(text(block.text)),
      );
    case "quote":
      return html`<blockquote><p>${inlineMarkup(text(block.text))}</p>${block.attribution ? html`<footer>${text(block.attribution)}</footer>` : ""}</blockquote>\n`;
    case "list": {
      const items = Array.isArray(block.items) ? block.items.map(text) : [];
      const list = items.map((item) => html`<li>${inlineMarkup(item)}</li>`);
      return block.ordered ? html`<ol>${list}</ol>\n` : html`<ul>${list}</ul>\n`;
    }
    case "image": {
      const asset = block.asset as RenderedAsset | undefined;
      const src = asset?.url ?? text(block.url);
      // An uploaded asset is served by this service (`/assets/...`); a URL an author typed must be http(s).
      if (!/^https?:\/\//i.test(src) && !(asset && src.startsWith("/"))) return "";
      const alt = asset?.alt ?? text(block.alt);
      const uncleared =
        asset?.cleared === false
          ? html`<p class="uncleared"><strong>Not cleared:</strong> readers will not see this image until it is cleared.</p>`
          : "";
      return html`<figure>${uncleared}${imageTag({ ...asset, url: src, alt }, { sizes: ARTICLE_IMAGE_SIZES })}${block.caption ? html`<figcaption>${inlineMarkup(text(block.caption))}</figcaption>` : ""}</figure>\n`;
    }
    case "embed": {
      const url = text(block.url);
      if (!/^https?:\/\//i.test(url)) return "";
      return html`<figure><a href="${url}" rel="noopener">${text(block.caption) || url}</a></figure>\n`;
    }
    default:
      return "";
  }
}

/** A heading of level 2 to 6 (1 is the page's title), clamped. */
export function headingHtml(level: number, words: Html): Html {
  switch (Math.min(Math.max(level, 2), 6)) {
    case 2:
      return html`<h2>${words}</h2>\n`;
    case 3:
      return html`<h3>${words}</h3>\n`;
    case 4:
      return html`<h4>${words}</h4>\n`;
    case 5:
      return html`<h5>${words}</h5>\n`;
    default:
      return html`<h6>${words}</h6>\n`;
  }
}
