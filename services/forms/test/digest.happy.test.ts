import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { digestSubscriptions, newsletterConfirmations } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { address, envelope, tokenIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

const subscribe = (email: string, as: "json" | "form" | "multipart" = "json") =>
  forms.post("/v1/public/newsletter/subscribe", { email, consent: true, ...envelope() }, { as });

const confirm = (t: string) =>
  forms.post("/v1/public/newsletter/subscribe/confirm", { t }, { headers: {} });

async function subscription(email: string) {
  const [row] = await forms.database.db
    .select()
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.email, email));
  return row;
}

describe("digest double opt-in", () => {
  test("subscribe, open the link, confirm, confirm again", async () => {
    const email = address("reader");
    const response = await subscribe(email);
    expect(response.status).toBe(202);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "accepted" });

    const [mail] = await ses.to(email);
    expect(mail?.subject).toBe("Confirm your subscription to the weekly digest");
    expect(mail?.body.text).toContain("https://api.example.test/v1/public/newsletter/confirm?t=");
    const token = tokenIn(mail);
    expect(await subscription(email)).toBeUndefined();

    // Opening the link shows a page with one button; it subscribes no one.
    for (let i = 0; i < 3; i += 1) {
      const page = await forms.handle(
        new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`),
      );
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const html = await page.text();
      expect(html).toContain('action="/v1/public/newsletter/subscribe/confirm"');
      expect(html).toContain(`name="t" value="${token}"`);
      expect(html.match(/<button/g)).toHaveLength(1);
    }
    expect(await subscription(email)).toBeUndefined();

    const confirmed = await confirm(token);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toEqual({ status: "confirmed" });
    expect((await subscription(email))?.status).toBe("subscribed");
    const welcome = (await ses.to(email)).filter(
      (e) => e.subject === "Welcome to the weekly digest",
    );
    expect(welcome).toHaveLength(1);

    const again = await confirm(token);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ status: "confirmed" });
    expect(await ses.to(email)).toHaveLength(2);
  });

  for (const as of ["form", "multipart"] as const) {
    test(`subscribe as ${as} data with consent "on"`, async () => {
      const email = address("reader");
      const response = await forms.post(
        "/v1/public/newsletter/subscribe",
        { email, consent: "on", ...envelope() },
        { as },
      );
      expect(response.status).toBe(202);
      expect(await ses.to(email)).toHaveLength(1);
    });
  }

  test("the page's button (a urlencoded form post) gets a page back", async () => {
    const email = address("reader");
    await subscribe(email);
    const token = tokenIn((await ses.to(email))[0]);
    const response = await forms.post(
      "/v1/public/newsletter/subscribe/confirm",
      { t: token },
      { as: "form", headers: { accept: "text/html" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toContain("You are subscribed");
    const newsroom = `${new URL(forms.config.NEWSROOM_HOST).origin}/newsroom`;
    expect(page).toContain(`<a href="${newsroom}">Back to the newsroom</a>`);
    expect((await subscription(email))?.status).toBe("subscribed");
  });

  test("only the token's SHA-256 is stored", async () => {
    const email = address("reader");
    await subscribe(email);
    const token = tokenIn((await ses.to(email))[0]);
    expect(token).toHaveLength(43);
    const rows = await forms.database.db
      .select()
      .from(newsletterConfirmations)
      .where(eq(newsletterConfirmations.email, email));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(48 * 3600_000);
  });

  test("a mixed-case address is one subscriber", async () => {
    const email = address("Reader");
    await subscribe(email.toUpperCase());
    const token = tokenIn((await ses.to(email))[0]);
    expect((await confirm(token)).status).toBe(200);
    expect((await subscription(email.toLowerCase()))?.status).toBe("subscribed");
  });
});
