import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import type { CmsPost } from "../src/cms/connector.ts";
import { ghostHtml } from "../src/cms/ghost/body.ts";
import { GhostConnector } from "../src/cms/ghost/connector.ts";
import { type GhostAdminServer, startGhostAdminServer } from "./support/ghost-admin-server.ts";

// Ghost 6 needs Node 22: these run against the stand-in Admin API server (see its header).
let ghost: GhostAdminServer;

beforeAll(() => {
  ghost = startGhostAdminServer();
});

afterAll(async () => {
  await ghost.stop();
});

const CANONICAL = "https://news.example.com/stories/council-vote";

function bodyOf(body: CmsPost["body"], change: Partial<CmsPost> = {}): string {
  return ghostHtml({ body, images: new Map(), canonicalUrl: CANONICAL, ...change });
}

describe("body conversion", () => {
  test("markup an author types stays text: <script>, attributes, raw HTML", () => {
    const html = bodyOf([
      { type: "paragraph", text: 'Before <script>alert("x")</script> after' },
      { type: "heading", text: "<img src=x onerror=alert(1)>" },
      {
        type: "quote",
        text: "Quote",
        attribution: '</blockquote><iframe src="https://evil.example">',
      },
      { type: "list", items: ["<b>bold?</b>", "a & b"] },
    ]);

    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<iframe");
    expect(html).not.toContain("<b>");
    expect(html).toContain("<p>Before &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; after</p>");
    expect(html).toContain("<h2>&lt;img src=x onerror=alert(1)&gt;</h2>");
    expect(html).toContain("<li>a &amp; b</li>");
  });

  test("links: only http(s) become links; javascript: and data: stay text", () => {
    const html = bodyOf([
      { type: "paragraph", text: "[click](javascript:alert(1)) and [data](data:text/html,hi)" },
      { type: "paragraph", text: 'See [the report](https://example.org/report?a=1&b="2")' },
    ]);

    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain('href="data');
    expect(html).toContain("<p>[click](javascript:alert(1)) and [data](data:text/html,hi)</p>");
    expect(html).toContain(
      '<a href="https://example.org/report?a=1&amp;b=&quot;2&quot;" rel="noopener">the report</a>',
    );
  });

  test("images and embeds: a URL that is not http(s) is left out, attributes are escaped", () => {
    const html = bodyOf(
      [
        { type: "image", url: "https://images.example.org/a.jpg", alt: '" onload="alert(1)' },
        { type: "embed", url: "https://video.example.org/v/1", caption: "<b>Watch</b>" },
        { type: "image", asset_id: "8c1f3a52-2f4e-4b5c-9a1d-6e7f8a9b0c1d", alt: "rewritten" },
      ],
      {
        images: new Map([
          [
            "8c1f3a52-2f4e-4b5c-9a1d-6e7f8a9b0c1d",
            { id: "javascript:alert(1)", url: "javascript:alert(1)" },
          ],
        ]),
      },
    );

    expect(html).toContain('alt="&quot; onload=&quot;alert(1)"');
    expect(html).toContain(
      '<p><a href="https://video.example.org/v/1" rel="noopener">&lt;b&gt;Watch&lt;/b&gt;</a></p>',
    );
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("rewritten");
  });

  test("the post ends with a link back to the canonical page, and only to an http(s) one", () => {
    const html = bodyOf([{ type: "paragraph", text: "Text." }]);
    expect(html.trimEnd()).toEndWith(
      `<p>First published in the newsroom: <a href="${CANONICAL}">read the original story</a>.</p>`,
    );

    const quoted = bodyOf([], { canonicalUrl: 'https://news.example.com/s/"><script>' });
    expect(quoted).toContain('href="https://news.example.com/s/&quot;&gt;&lt;script&gt;"');
    expect(bodyOf([], { canonicalUrl: "javascript:alert(1)" })).toBe("");
  });
});

describe("the Admin API key", () => {
  test("the stand-in refuses tokens as Ghost does: expired, too long-lived, wrong audience, wrong algorithm", async () => {
    const secret = Buffer.from(ghost.key.secret, "hex");
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: { iat: number; exp: number; aud: string }, alg = "HS256") =>
      new SignJWT({})
        .setProtectedHeader({ alg, typ: "JWT", kid: ghost.key.id })
        .setIssuedAt(claims.iat)
        .setExpirationTime(claims.exp)
        .setAudience(claims.aud)
        .sign(alg === "HS256" ? secret : Buffer.concat([secret, secret]));
    const answer = async (token: string) => {
      const response = await fetch(`${ghost.url()}/ghost/api/admin/posts/`, {
        headers: { authorization: `Ghost ${token}`, "accept-version": "v5.0" },
      });
      const body = (await response.json()) as { errors?: { type: string; message: string }[] };
      return { status: response.status, error: body.errors?.[0] };
    };

    expect((await answer(await sign({ iat: now, exp: now + 300, aud: "/admin/" }))).status).toBe(
      200,
    );
    const expired = await answer(await sign({ iat: now - 600, exp: now - 300, aud: "/admin/" }));
    expect(expired).toMatchObject({ status: 401, error: { type: "UnauthorizedError" } });
    const longLived = await answer(await sign({ iat: now, exp: now + 3600, aud: "/admin/" }));
    expect(longLived).toMatchObject({ status: 401, error: { type: "UnauthorizedError" } });
    const content = await answer(await sign({ iat: now, exp: now + 300, aud: "/content/" }));
    expect(content).toMatchObject({ status: 401, error: { type: "UnauthorizedError" } });
    const hs512 = await answer(await sign({ iat: now, exp: now + 300, aud: "/admin/" }, "HS512"));
    expect(hs512).toMatchObject({ status: 401, error: { type: "UnauthorizedError" } });
    const garbage = await answer("not.a.token");
    expect(garbage).toMatchObject({ status: 400, error: { type: "BadRequestError" } });
  });

  test("no message the connector gives holds the key or its secret", async () => {
    const wrongSecret = `${ghost.key.id}:${"ab".repeat(32)}`;
    const connector = new GhostConnector({ url: ghost.url(), adminApiKey: wrongSecret });

    const check = await connector.check();
    const error = await connector
      .create({
        marker: "m",
        title: "t",
        slug: "t",
        summary: null,
        body: [],
        canonicalUrl: CANONICAL,
        publishedAt: "2026-11-26T08:00:00.000Z",
        topics: [],
        images: new Map(),
      })
      .catch((e: Error) => e);

    const words = `${JSON.stringify(check)} ${String(error)}`;
    expect(check.ok).toBe(false);
    expect(words).not.toContain("ab".repeat(32));
    expect(words).not.toContain(ghost.key.id);
    expect(words).not.toContain(ghost.key.secret);
  });
});
