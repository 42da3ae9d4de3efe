import { type Html, html } from "@newsroom/shared/html";
import type { StoryBlock } from "@newsroom/shared/story-body";
import { headingHtml, inlineMarkup } from "@newsroom/shared/story-body-html";
import type { CmsPost } from "../connector.ts";

const HTTP_URL = /^https?:\/\//i;

/**
 * A story's body as the HTML Ghost takes with `?source=html` (Ghost turns it into its Lexical
 * document: paragraphs, headings, quotes, lists and `figure`s with an `img` become the matching
 * cards). Every word an author typed is escaped; only the inline markup `**strong**`, `*em*` and
 * `[words](https://...)` becomes markup, through the same renderer as the public page, so a
 * `<script>` or a `javascript:` link stays text. An image of an uploaded asset points at its copy
 * in Ghost's media library (`post.images`); one whose asset is not there (not cleared, or not
 * uploaded yet) is left out rather than pointing back here. The post closes with a link to the
 * story's canonical page in the newsroom.
 */
export function ghostHtml(post: Pick<CmsPost, "body" | "images" | "canonicalUrl">): string {
  const blocks = post.body.map((block) => ghostBlock(block, post.images));
  return html`${blocks}${linkBack(post.canonicalUrl)}`.value;
}

function ghostBlock(block: StoryBlock, images: CmsPost["images"]): Html | string {
  switch (block.type) {
    case "paragraph":
      return html`<p>${inlineMarkup(block.text)}</p>\n`;
    case "heading":
      return headingHtml(block.level ?? 2, inlineMarkup(block.text));
    case "quote":
      return html`<blockquote><p>${inlineMarkup(block.text)}</p>${block.attribution ? html`<p>— ${block.attribution}</p>` : ""}</blockquote>\n`;
    case "list": {
      const items = block.items.map((item) => html`<li>${inlineMarkup(item)}</li>`);
      return block.ordered ? html`<ol>${items}</ol>\n` : html`<ul>${items}</ul>\n`;
    }
    case "image": {
      const src = "asset_id" in block ? images.get(block.asset_id)?.url : block.url;
      if (!src || !HTTP_URL.test(src)) return "";
      const caption = block.caption
        ? html`<figcaption>${inlineMarkup(block.caption)}</figcaption>`
        : "";
      return html`<figure class="kg-card kg-image-card"><img src="${src}" class="kg-image" alt="${block.alt ?? ""}">${caption}</figure>\n`;
    }
    case "embed": {
      if (!HTTP_URL.test(block.url)) return "";
      return html`<p><a href="${block.url}" rel="noopener">${block.caption ?? block.url}</a></p>\n`;
    }
    default:
      return "";
  }
}

/** The closing paragraph: where the story was first published, as a link readers can follow. */
function linkBack(canonicalUrl: string): Html | string {
  if (!HTTP_URL.test(canonicalUrl)) return "";
  return html`<p>First published in the newsroom: <a href="${canonicalUrl}">read the original story</a>.</p>\n`;
}
