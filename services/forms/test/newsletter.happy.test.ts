import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { organizationSubscribers } from "@newsroom/shared/db/schema";
import { and, eq } from "drizzle-orm";
import {
  confirmationOf,
  newsletterOrg,
  organizationWelcomes,
  subscribeTo,
} from "./support/fixtures.ts";
import { address, envelope, type PostInit, tokenIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms, org } = formsWorld({ org: { site: { accent: "#d4145a" } } });

const hash = (email: string) => createHash("sha256").update(email.toLowerCase()).digest("hex");

const subscribe = (body: Record<string, unknown>, init: PostInit = {}) =>
  subscribeTo(forms, org, body, init);

const confirmPost = (t: string, headers: Record<string, string> = {}) =>
  forms.post("/v1/public/newsletter/confirm", { t }, { as: "form", headers });

async function subscriberRows(email: string) {
  return forms.database.db
    .select()
    .from(organizationSubscribers)
    .where(
      and(
        eq(organizationSubscribers.organizationId, org.id),
        eq(organizationSubscribers.emailHash, hash(email)),
      ),
    );
}

describe("organization newsletter double opt-in", () => {
  test("subscribe with fetch, open the page, press the button, press it again", async () => {
    const email = address("visitor");
    const response = await subscribe({ email }, { headers: { accept: "application/json" } });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: "pending" });
    expect(response.headers.get("access-control-allow-origin")).toBe(org.origin);
    expect(response.headers.get("vary")).toContain("Origin");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();

    const [mail] = await ses.to(email);
    expect(mail?.from).toBe(`"${org.name}" <forms@example.com>`);
    expect(mail?.subject).toBe(`Confirm your subscription to ${org.name}`);
    const token = tokenIn(mail);

    const page = await forms.handle(
      new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`),
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(org.name);
    expect(html).toContain("--accent: #d4145a");
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('action="/v1/public/newsletter/confirm"');
    expect(html.match(/<button/g)).toHaveLength(1);
    expect(await subscriberRows(email)).toHaveLength(0);

    const confirmed = await confirmPost(token);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await confirmed.text()).toContain("You are subscribed");
    expect(await subscriberRows(email)).toHaveLength(1);
    const row = await confirmationOf(forms.database.db, token);
    expect(row?.email).toBeNull();
    expect(row?.usedAt).not.toBeNull();
    const welcome = await organizationWelcomes(ses, email, org);
    expect(welcome).toHaveLength(1);

    const again = await confirmPost(token);
    expect(again.status).toBe(200);
    expect(await subscriberRows(email)).toHaveLength(1);
    expect(await ses.to(email)).toHaveLength(2);
    const page2 = await forms.handle(
      new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`),
    );
    expect(page2.status).toBe(200);
    expect(await page2.text()).toContain("Already confirmed");
  });

  test("JSON clients of the confirm route get JSON", async () => {
    const email = address("visitor");
    await subscribe({ email }, { headers: { accept: "application/json" } });
    const token = tokenIn((await ses.to(email))[0]);
    const response = await confirmPost(token, { accept: "application/json" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "confirmed" });
  });

  test("a plain form post comes back 303 to the redirect, and the confirmation too", async () => {
    const email = address("visitor");
    const redirect = `${org.origin}/newsletter/thanks?ref=footer`;
    const response = await subscribe({ email, redirect }, { as: "form" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${redirect}&newsletter=pending`);
    const confirmed = await confirmPost(tokenIn((await ses.to(email))[0]));
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe(`${redirect}&newsletter=confirmed`);
    expect(await subscriberRows(email)).toHaveLength(1);
  });

  test("without a redirect a form post goes back to the posting page", async () => {
    const email = address("visitor");
    const page = `${org.origin}/blog/post?newsletter=invalid#signup`;
    const response = await subscribe({ email }, { as: "multipart", headers: { referer: page } });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      `${org.origin}/blog/post?newsletter=pending#signup`,
    );
  });

  test("the Referer stands in for a missing Origin", async () => {
    const email = address("visitor");
    const response = await forms.post(
      `/v1/public/newsletter/${org.slug}/subscribe`,
      { email, consent: true, ...envelope() },
      { headers: { referer: `${org.origin}/signup`, accept: "application/json" } },
    );
    expect(response.status).toBe(202);
    expect(await ses.to(email)).toHaveLength(1);
  });

  test("a verified human check subscribes at once (single opt-in)", async () => {
    const email = address("visitor");
    const response = await subscribe(
      { email, human_check_token: "test-pass" },
      { headers: { accept: "application/json" } },
    );
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: "subscribed" });
    expect(await subscriberRows(email)).toHaveLength(1);
    expect((await ses.to(email)).map((e) => e.subject)).toEqual([
      `You are subscribed to ${org.name}`,
    ]);
    const form = await subscribe({ email, human_check_token: "test-pass" }, { as: "form" });
    expect(form.headers.get("location")).toBe(`${org.origin}/?newsletter=subscribed`);
    expect(await ses.to(email)).toHaveLength(1);
  });

  test("the hosted newsroom and its active hostname may subscribe", async () => {
    const hosted = await newsletterOrg(forms.database.db, {
      site: { hostname: `news.${org.slug}.example` },
    });
    for (const origin of ["https://newsrooms.example.test", `https://news.${org.slug}.example`]) {
      const email = address("visitor");
      const response = await forms.post(
        `/v1/public/newsletter/${hosted.slug}/subscribe`,
        { email, consent: true, ...envelope() },
        { headers: { origin, accept: "application/json" } },
      );
      expect({ origin, status: response.status }).toEqual({ origin, status: 202 });
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
    }
  });

  test("CORS preflight answers an allowed origin", async () => {
    const response = await forms.handle(
      new Request(`http://localhost/v1/public/newsletter/${org.slug}/subscribe`, {
        method: "OPTIONS",
        headers: {
          origin: org.origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(org.origin);
    expect(response.headers.get("access-control-allow-methods")).toBe("POST");
    expect(response.headers.get("access-control-allow-headers")).toContain("Content-Type");
    expect(response.headers.get("vary")).toContain("Origin");
  });
});
