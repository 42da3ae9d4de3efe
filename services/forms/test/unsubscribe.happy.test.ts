import { describe, expect, test } from "bun:test";
import { digestStatus, digestSubscriber } from "./support/fixtures.ts";
import { address, clientIp, headerOf, unsubscribeLinkIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

const subscribed = (email: string) => digestSubscriber(forms, ses, email);
const status = (email: string) => digestStatus(forms.database.db, email);

const get = (path: string) =>
  forms.handle(new Request(`http://localhost${path}`, { headers: { "x-client-ip": clientIp() } }));

/** What a mail provider sends for RFC 8058 one-click: a POST to the link, no cookies. */
function oneClick(path: string, as: "form" | "multipart" = "form") {
  if (as === "form") {
    return forms.post(path, "List-Unsubscribe=One-Click", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
  }
  const data = new FormData();
  data.append("List-Unsubscribe", "One-Click");
  return forms.post(path, data);
}

describe("the welcome email", () => {
  test("carries an unsubscribe link and the RFC 8058 headers", async () => {
    const welcome = await subscribed(address("reader"));
    expect(headerOf(welcome, "List-Unsubscribe")).toMatch(
      /^<https:\/\/api\.example\.test\/v1\/public\/newsletter\/unsubscribe\?t=[A-Za-z0-9_-]{65}>$/,
    );
    expect(headerOf(welcome, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(unsubscribeLinkIn(welcome)).toStartWith("/v1/public/newsletter/unsubscribe?t=");
  });
});

describe("one-click unsubscribe", () => {
  for (const as of ["form", "multipart"] as const) {
    test(`a ${as} POST of List-Unsubscribe=One-Click to the link unsubscribes, twice too`, async () => {
      const email = address("reader");
      const link = unsubscribeLinkIn(await subscribed(email));
      expect(await status(email)).toBe("subscribed");

      const first = await oneClick(link, as);
      expect(first.status).toBe(200);
      expect(first.headers.get("cache-control")).toBe("no-store");
      expect(await first.text()).toContain("You are unsubscribed");
      expect(await status(email)).toBe("unsubscribed");

      const again = await oneClick(link, as);
      expect(again.status).toBe(200);
      expect(await status(email)).toBe("unsubscribed");
    });
  }

  test("API clients get JSON", async () => {
    const email = address("reader");
    const link = unsubscribeLinkIn(await subscribed(email));
    const response = await forms.post(link, "List-Unsubscribe=One-Click", {
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "unsubscribed" });
    expect(await status(email)).toBe("unsubscribed");
  });
});

describe("the unsubscribe page", () => {
  test("shows one button, changes nothing, and its button unsubscribes", async () => {
    const email = address("reader");
    const link = unsubscribeLinkIn(await subscribed(email));
    const token = new URL(link, "http://localhost").searchParams.get("t")!;

    for (let i = 0; i < 3; i += 1) {
      const page = await get(link);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      const html = await page.text();
      expect(html).toContain('action="/v1/public/newsletter/unsubscribe"');
      expect(html).toContain(`name="t" value="${token}"`);
      expect(html.match(/<button/g)).toHaveLength(1);
    }
    expect(await status(email)).toBe("subscribed");

    // The button: a urlencoded form post of `t` to the path without a query.
    const pressed = await forms.post(
      "/v1/public/newsletter/unsubscribe",
      { t: token },
      { as: "form" },
    );
    expect(pressed.status).toBe(200);
    expect(await pressed.text()).toContain("You are unsubscribed");
    expect(await status(email)).toBe("unsubscribed");

    const after = await get(link);
    expect(after.status).toBe(200);
    const html = await after.text();
    expect(html).toContain("You are unsubscribed");
    expect(html).not.toContain("<button");
    // A way back to the newsroom the digest comes from.
    const newsroom = `${new URL(forms.config.NEWSROOM_HOST).origin}/newsroom`;
    expect(html).toContain(`<a href="${newsroom}">Back to the newsroom</a>`);
  });
});

describe("subscribing again", () => {
  test("an unsubscribed address can opt in again and gets a working link", async () => {
    const email = address("reader");
    const first = unsubscribeLinkIn(await subscribed(email));
    expect((await oneClick(first)).status).toBe(200);
    expect(await status(email)).toBe("unsubscribed");

    forms.clock.advance(25 * 3600_000); // past the per-address confirmation throttle
    const second = unsubscribeLinkIn(await subscribed(email));
    expect(await status(email)).toBe("subscribed");
    expect(second).toBe(first); // one link per subscription
    expect((await oneClick(second)).status).toBe(200);
    expect(await status(email)).toBe("unsubscribed");
  });
});
