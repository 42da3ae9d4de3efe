import { describe, expect, test } from "bun:test";
import { wordPressBlocks } from "../src/cms/wordpress/blocks.ts";

/**
 * What a story's author typed cannot become markup, a block comment or an attribute in the
 * WordPress post: every text and address is escaped, block attributes are JSON without `--`,
 * and addresses other than http(s) are dropped.
 */
const images = new Map([
  ["0b8f7a2e-6c1d-4e7a-9d5b-3f2a1c0e9b84", { id: "7", url: "https://wp.example.com/a.png" }],
]);

function markup(body: Parameters<typeof wordPressBlocks>[0]["body"]) {
  return wordPressBlocks({
    body,
    images,
    canonicalUrl: "https://news.example.com/newsroom/a-story",
    marker: "newsroomabc",
  });
}

describe("WordPress block markup", () => {
  test("text cannot open a tag or close a block comment", () => {
    const html = markup([
      { type: "paragraph", text: "<script>alert(1)</script> --> <!-- /wp:paragraph -->" },
      { type: "heading", text: "<img src=x onerror=alert(1)>" },
      { type: "quote", text: "\"quoted\" & 'single'", attribution: "<b>Me</b>" },
      { type: "list", items: ["<li>nested</li>"] },
    ]);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>Me</b>");
    expect(html).not.toContain("<li>nested</li>");
    expect(html).toContain(
      "&lt;script&gt;alert(1)&lt;/script&gt; --&gt; &lt;!-- /wp:paragraph --&gt;",
    );
    // Every block comment is one this code wrote: as many openers as closers, in pairs.
    const openers = html.match(/<!-- wp:[a-z-]+/g) ?? [];
    const closers = html.match(/<!-- \/wp:[a-z-]+ -->/g) ?? [];
    expect(openers.length).toBe(closers.length);
    expect(openers.length).toBe(7);
  });

  test("addresses are escaped, and only http(s) ones are kept", () => {
    const html = markup([
      { type: "embed", url: 'https://example.com/"><script>x</script>' },
      { type: "image", url: 'https://example.com/i.png"onerror="x', alt: '"><script>' },
      { type: "paragraph", text: "[click](javascript:alert(1))" },
    ]);
    expect(html).toContain('href="https://example.com/&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).toContain('src="https://example.com/i.png&quot;onerror=&quot;x"');
    expect(html).toContain('alt="&quot;&gt;&lt;script&gt;"');
    expect(html).not.toContain('javascript:alert(1)"');
    expect(html).not.toMatch(/href="javascript:/);
  });

  test("an image of an asset not in the media library is left out", () => {
    const html = markup([
      {
        type: "image",
        asset_id: "0b8f7a2e-6c1d-4e7a-9d5b-3f2a1c0e9b84",
        caption: "In <the> library",
      },
      { type: "image", asset_id: "11111111-2222-4333-8444-555555555555" },
    ]);
    expect(html).toContain('<!-- wp:image {"id":7} -->');
    expect(html).toContain('<img src="https://wp.example.com/a.png" alt="" class="wp-image-7"/>');
    expect(html).toContain("In &lt;the&gt; library");
    expect((html.match(/wp:image \{/g) ?? []).length).toBe(1);
  });

  test("the post ends with a link to the canonical page carrying the marker", () => {
    const html = markup([]);
    expect(html).toBe(
      '<!-- wp:paragraph {"className":"newsroom-source newsroomabc"} -->\n<p class="newsroom-source newsroomabc">Originally published at <a href="https://news.example.com/newsroom/a-story">https://news.example.com/newsroom/a-story</a>.</p>\n<!-- /wp:paragraph -->',
    );
  });
});
