import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedDemo } from "@newsroom/workspace/demo/seed";
import { randomIp, type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * A flow across public-read and forms on the demo, in development: the hosted newsroom read at
 * its local address (its canonical hostname does not resolve here) signs a reader up and, after
 * the confirmation, returns them to that local page, never to the canonical hostname.
 */
describe("the demo's hosted newsroom: a sign-up returns to the local page", () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await webHarness();
    await seedDemo(h.embedded.runtime.database.db, "armage", "development");
  }, 120_000);
  afterAll(() => h?.close());

  test("the form's redirect, the answer and the confirmation's return stay on the local address", async () => {
    const home = `${h.url}/newsrooms/northwind`;
    const page = await (await fetch(home)).text();
    expect(page).toContain('<link rel="canonical" href="https://news.northwind.example"');
    const redirect = /name="redirect" value="([^"]+)"/.exec(page)?.[1];
    expect(redirect).toBe(home);

    const email = `reader-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const ip = randomIp();
    const subscribed = await fetch(`${h.url}/v1/public/newsletter/northwind/subscribe`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: h.url,
        referer: home,
        "x-forwarded-for": ip,
      },
      body: new URLSearchParams({
        email,
        consent: "on",
        submission_id: crypto.randomUUID(),
        started_at: String(Date.now() - 10_000),
        redirect: redirect!,
      }),
    });
    expect(subscribed.status).toBe(303);
    expect(subscribed.headers.get("location")).toBe(`${home}?newsletter=pending`);

    const letter = (await h.ses.to(email)).at(-1);
    const token = /confirm\?t=([A-Za-z0-9_-]+)/.exec(letter?.body.text ?? "")?.[1];
    expect(token).toBeDefined();
    const confirmed = await fetch(`${h.url}/v1/public/newsletter/confirm`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
      body: new URLSearchParams({ t: token! }),
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe(`${home}?newsletter=confirmed`);
  });
});
