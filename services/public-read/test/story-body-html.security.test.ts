import { describe, expect, test } from "bun:test";
import { inlineMarkup, renderBody } from "@newsroom/shared/story-body-html";

/**
 * The one body renderer (public item page, workspace preview and review page): the author's text
 * is escaped before the small markup (`*em*`, `**strong**`, `[words](https://...)`) is applied,
 * so no HTML an author types reaches a page, and only http(s) addresses become links.
 */
describe("the story body renderer", () => {
  test("emphasis, strong and links are marked up", () => {
    expect(inlineMarkup("a *b* **c** [d *e*](https://x.example/p?q=1&r=2)").value).toBe(
      'a <em>b</em> <strong>c</strong> <a href="https://x.example/p?q=1&amp;r=2" rel="noopener">d <em>e</em></a>',
    );
    expect(inlineMarkup("2 * 3 * 4 and ** alone").value).toBe("2 * 3 * 4 and ** alone");
  });

  test("typed HTML stays text, and a javascript: or data: link stays text", () => {
    const out = inlineMarkup(
      '<script>alert(1)</script> [x](javascript:alert(1)) [y](data:text/html,hi) <img src=x onerror=alert(1)> [z](https://a.example/"onmouseover="x)',
    ).value;
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<img");
    expect(out).not.toContain('href="javascript:');
    expect(out).not.toContain('href="data:');
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(out).toContain("[x](javascript:alert(1))");
    // A quote cannot end the attribute: it is escaped inside it.
    expect(out).toContain('href="https://a.example/&quot;onmouseover=&quot;x" rel="noopener"');
  });

  test("every block type renders; an image or embed address that is not http(s) is left out", () => {
    const out = renderBody([
      { type: "heading", text: "Big *news*", level: 3 },
      { type: "paragraph", text: "Hello **world**" },
      { type: "list", items: ["[one](https://one.example)", "<b>two</b>"], ordered: true },
      { type: "quote", text: "Quoted", attribution: "<i>Someone</i>" },
      { type: "image", url: "javascript:alert(1)", alt: "bad" },
      { type: "image", url: "https://img.example/a.jpg", alt: 'say "hi"', caption: "*Cap*" },
      { type: "embed", url: "javascript:alert(1)" },
      { type: "embed", url: "https://video.example/1", caption: "Watch" },
      { type: "image", asset: { url: "https://img.example/b.jpg", alt: "B", cleared: false } },
    ]).value;
    expect(out).toContain("<h3>Big <em>news</em></h3>");
    expect(out).toContain("<p>Hello <strong>world</strong></p>");
    expect(out).toContain(
      '<ol><li><a href="https://one.example" rel="noopener">one</a></li><li>&lt;b&gt;two&lt;/b&gt;</li></ol>',
    );
    expect(out).toContain("<footer>&lt;i&gt;Someone&lt;/i&gt;</footer>");
    expect(out).not.toContain("javascript:");
    expect(out).toContain('alt="say &quot;hi&quot;"');
    expect(out).toContain("<figcaption><em>Cap</em></figcaption>");
    expect(out).toContain('<a href="https://video.example/1" rel="noopener">Watch</a>');
    expect(out).toMatch(/Not cleared:.*<img src="https:\/\/img\.example\/b\.jpg"/);
  });
});
