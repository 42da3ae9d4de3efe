import { type Html, html } from "@newsroom/shared/html";
import type { AssetOut } from "../content/model.ts";
import { ARTICLE_IMAGE_SIZES, imageTag } from "./image.ts";

type Block = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * A public body (already cleared: `publicBodies` dropped every block about an uncleared asset)
 * as HTML. Headings start at level 2 under the page's title; a block of a shape not known here
 * is left out.
 */
export function renderBody(blocks: Block[]): Html {
  return html`${blocks.map(renderBlock)}`;
}

function renderBlock(block: Block): Html | string {
  switch (block.type) {
    case "paragraph":
      return html`<p>${text(block.text)}</p>\n`;
    case "heading":
      return heading(typeof block.level === "number" ? block.level : 2, text(block.text));
    case "quote":
      return html`<blockquote><p>${text(block.text)}</p>${block.attribution ? html`<footer>${text(block.attribution)}</footer>` : ""}</blockquote>\n`;
    case "list": {
      const items = Array.isArray(block.items) ? block.items.map(text) : [];
      const list = items.map((item) => html`<li>${item}</li>`);
      return block.ordered ? html`<ol>${list}</ol>\n` : html`<ul>${list}</ul>\n`;
    }
    case "image": {
      const asset = block.asset as AssetOut | undefined;
      const src = asset?.url ?? text(block.url);
      if (!src) return "";
      const alt = asset?.alt ?? text(block.alt);
      const image = imageTag({ ...asset, url: src, alt }, { sizes: ARTICLE_IMAGE_SIZES });
      return html`<figure>${image}${block.caption ? html`<figcaption>${text(block.caption)}</figcaption>` : ""}</figure>\n`;
    }
    case "embed": {
      const url = text(block.url);
      if (!url) return "";
      return html`<figure><a href="${url}" rel="noopener">${text(block.caption) || url}</a></figure>\n`;
    }
    default:
      return "";
  }
}

function heading(level: number, words: string): Html {
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
