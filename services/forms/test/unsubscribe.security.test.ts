import { describe, expect, test } from "bun:test";
import { digestStatus, digestSubscriber } from "./support/fixtures.ts";
import { address, unsubscribeLinkIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

const PATH = "/v1/public/newsletter/unsubscribe";

/** Subscribes and confirms an address; returns the token of its unsubscribe link. */
async function subscribedToken(email: string): Promise<string> {
  const welcome = await digestSubscriber(forms, ses, email);
  return new URL(unsubscribeLinkIn(welcome), "http://localhost").searchParams.get("t")!;
}

const status = (email: string) => digestStatus(forms.database.db, email);

const oneClick = (token: string, headers: Record<string, string> = {}, ip?: string) =>
  forms.post(`${PATH}?t=${encodeURIComponent(token)}`, "List-Unsubscribe=One-Click", {
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    ip,
  });

/** Flips one base64url character to another valid one. */
const flip = (token: string, at: number) =>
  token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);

describe("forged and malformed links", () => {
  test("change nothing and answer 404 (a page, or not_found for JSON)", async () => {
    const victim = address("victim");
    const other = address("other");
    const token = await subscribedToken(victim);
    const otherToken = await subscribedToken(other);
    const forged = [
      flip(token, 64), // the signature's last character
      flip(token, 3), // the subscription id
      `${otherToken.slice(0, 22)}${token.slice(22)}`, // one id with another's signature
      token.slice(0, 64),
      `${token}A`,
      "A".repeat(65),
      "",
      `${token.slice(0, 60)}%00abc`,
    ];
    for (const bad of forged) {
      const page = await oneClick(bad);
      expect(page.status).toBe(404);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await page.text()).toContain("This link is not valid");

      const api = await oneClick(bad, { accept: "application/json" });
      expect(api.status).toBe(404);
      expect(((await api.json()) as { error: { code: string } }).error.code).toBe("not_found");

      const shown = await forms.handle(
        new Request(`http://localhost${PATH}?t=${encodeURIComponent(bad)}`),
      );
      expect(shown.status).toBe(404);
    }
    expect(await status(victim)).toBe("subscribed");
    expect(await status(other)).toBe("subscribed");
  });

  test("a link signed with another SECRETS_KEY does nothing here", async () => {
    const email = address("reader");
    const other = await forms.sibling({
      SES_ENDPOINT: ses.url,
      SECRETS_KEY: Buffer.alloc(32, 42).toString("base64"),
    });
    try {
      const token = await subscribedToken(email);
      const answer = await other.post(`${PATH}?t=${token}`, "List-Unsubscribe=One-Click", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(answer.status).toBe(404);
      expect(await status(email)).toBe("subscribed");
    } finally {
      await other.close();
    }
  });
});

describe("one-click requests", () => {
  test("are not rate limited: a mail provider sends many from one address", async () => {
    const ip = "10.200.0.1";
    const emails = Array.from({ length: 25 }, () => address("reader"));
    const tokens: string[] = [];
    for (const email of emails) tokens.push(await subscribedToken(email));
    for (const token of tokens) expect((await oneClick(token, {}, ip)).status).toBe(200);
    for (const email of emails) expect(await status(email)).toBe("unsubscribed");
  });

  test("work while email is not configured here", async () => {
    const email = address("reader");
    const token = await subscribedToken(email);
    const noMail = await forms.sibling({ SES_ENDPOINT: ses.url, FORMS_FROM_EMAIL: undefined });
    try {
      expect(
        (
          await noMail.post(`${PATH}?t=${token}`, "List-Unsubscribe=One-Click", {
            headers: { "content-type": "application/x-www-form-urlencoded" },
          })
        ).status,
      ).toBe(200);
      expect(await status(email)).toBe("unsubscribed");
    } finally {
      await noMail.close();
    }
  });

  test("the page carries no script and cannot be framed", async () => {
    const token = await subscribedToken(address("reader"));
    const page = await forms.handle(new Request(`http://localhost${PATH}?t=${token}`));
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).not.toContain("<script");
  });
});
