import { beforeAll, describe, expect, test } from "bun:test";
import { newsletterConfirmations, organizationSubscribers } from "@newsroom/shared/db/schema";
import { updateOrganizationRow } from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import { type NewsletterOrg, newsletterOrg } from "./support/fixtures.ts";
import { address, answerBytes, envelope, type PostInit, tokenIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms, org } = formsWorld({ org: {} });
let other: NewsletterOrg;

beforeAll(async () => {
  other = await newsletterOrg(forms.database.db);
});

const path = () => `/v1/public/newsletter/${org.slug}/subscribe`;

function post(body: Record<string, unknown>, init: PostInit = {}) {
  return forms.post(
    path(),
    { consent: true, ...envelope(forms.clock.now().getTime()), ...body },
    init,
  );
}

describe("origin check", () => {
  const refused: [string, Record<string, string>][] = [
    ["no Origin and no Referer", {}],
    ["another site's Origin", { origin: "https://evil.example" }],
    ["another organization's origin", {}],
    ["an Origin of null", { origin: "null" }],
    ["an Origin of null with an allowed Referer", { origin: "null" }],
    ["the same host over http", {}],
    ["a Referer on another site", { referer: "https://evil.example/page" }],
    ["a look-alike host", {}],
  ];
  for (const [name, headers] of refused) {
    test(`${name} is 403 origin_not_allowed without CORS headers`, async () => {
      const h = { ...headers };
      if (name === "another organization's origin") h.origin = other.origin;
      if (name === "the same host over http") h.origin = org.origin.replace("https:", "http:");
      if (name === "a look-alike host") h.origin = `${org.origin}.evil.example`;
      if (name === "an Origin of null with an allowed Referer") h.referer = `${org.origin}/page`;
      const email = address();
      for (const as of ["json", "form"] as const) {
        const response = await post({ email }, { as, headers: h });
        expect(response.status).toBe(403);
        const body = (await response.json()) as { error: { code: string } };
        expect(body.error.code).toBe("origin_not_allowed");
        expect(response.headers.get("access-control-allow-origin")).toBeNull();
        expect(response.headers.get("location")).toBeNull();
      }
      expect(await ses.to(email)).toHaveLength(0);
    });
  }

  test("a preflight from another origin is refused without CORS headers", async () => {
    const response = await forms.handle(
      new Request(`http://localhost${path()}`, {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("the Origin header wins over a Referer", async () => {
    const response = await post(
      { email: address() },
      { headers: { origin: "https://evil.example", referer: `${org.origin}/page` } },
    );
    expect(response.status).toBe(403);
  });
});

describe("redirects", () => {
  for (const redirect of [
    "https://evil.example/phish",
    "//evil.example/phish",
    "javascript:alert(1)",
    `${"https://evil.example"}?${"x"}=${"https://www.example"}`,
    "/relative/path",
  ]) {
    test(`a redirect to ${redirect} is refused, never followed`, async () => {
      const email = address();
      const json = await post(
        { email, redirect },
        { headers: { origin: org.origin, accept: "application/json" } },
      );
      expect(json.status).toBe(422);
      const body = (await json.json()) as { error: { fields: { field: string }[] } };
      expect(body.error.fields.map((f) => f.field)).toEqual(["redirect"]);

      const form = await post({ email, redirect }, { as: "form", headers: { origin: org.origin } });
      expect(form.status).toBe(303);
      expect(form.headers.get("location")).toBe(
        `${org.origin}/?newsletter=invalid&newsletter_fields=redirect`,
      );
      expect(await ses.to(email)).toHaveLength(0);
    });
  }

  test("a Referer path on the allowed origin is kept, another site's never used", async () => {
    const form = await post(
      { email: address() },
      { as: "form", headers: { origin: org.origin, referer: "https://evil.example/x" } },
    );
    expect(form.headers.get("location")).toBe(`${org.origin}/?newsletter=pending`);
  });

  test("a stored return URL on an origin removed since is not followed", async () => {
    const moving = await newsletterOrg(forms.database.db);
    const email = address();
    await forms.post(
      `/v1/public/newsletter/${moving.slug}/subscribe`,
      { email, consent: true, redirect: `${moving.origin}/thanks`, ...envelope() },
      { as: "form", headers: { origin: moving.origin } },
    );
    await updateOrganizationRow(forms.database.db, moving.id, {
      newsletterOrigins: ["https://new-site.example"],
    });
    const confirmed = await forms.post(
      "/v1/public/newsletter/confirm",
      { t: tokenIn((await ses.to(email))[0]) },
      { as: "form" },
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get("location")).toBeNull();
  });
});

describe("what answers tell", () => {
  test("bot-screened, new, pending, subscribed and throttled addresses get identical answers", async () => {
    const headers = { origin: org.origin, accept: "application/json" };
    const subscribed = address("subscribed");
    await post({ email: subscribed }, { headers });
    await forms.post(
      "/v1/public/newsletter/confirm",
      { t: tokenIn((await ses.to(subscribed))[0]) },
      { as: "form" },
    );
    const pending = address("pending");
    await post({ email: pending }, { headers });
    const throttled = address("throttled");
    await post({ email: throttled }, { headers });
    await post({ email: throttled }, { headers });

    const bot = address("bot");
    const answers = [
      await answerBytes(await post({ email: address("new") }, { headers })),
      await answerBytes(await post({ email: pending }, { headers })),
      await answerBytes(await post({ email: subscribed }, { headers })),
      await answerBytes(await post({ email: throttled }, { headers })),
      await answerBytes(await post({ email: bot, fax: "555" }, { headers })),
      await answerBytes(
        await post({ email: bot, started_at: forms.clock.now().getTime() - 500 }, { headers }),
      ),
    ];
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toStartWith("202");
    expect(await ses.to(bot)).toHaveLength(0);
    expect(await ses.to(throttled)).toHaveLength(2);
  });

  test("a form post from a bot is redirected exactly like a person's", async () => {
    const bot = address("bot");
    const response = await post(
      { email: bot, fax: "x" },
      { as: "form", headers: { origin: org.origin } },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${org.origin}/?newsletter=pending`);
    expect(await ses.to(bot)).toHaveLength(0);
  });

  test("after confirmation only the address's hash is kept", async () => {
    const email = address("Hashed");
    await post({ email }, { headers: { origin: org.origin } });
    await forms.post(
      "/v1/public/newsletter/confirm",
      { t: tokenIn((await ses.to(email))[0]) },
      { as: "form" },
    );
    const dump = JSON.stringify(
      await forms.database.db
        .select()
        .from(organizationSubscribers)
        .where(eq(organizationSubscribers.organizationId, org.id)),
    );
    expect(dump).not.toContain(email.toLowerCase());
    const confirmations = await forms.database.db
      .select()
      .from(newsletterConfirmations)
      .where(eq(newsletterConfirmations.email, email.toLowerCase()));
    expect(confirmations).toHaveLength(0);
  });

  test("opening the confirmation page never subscribes", async () => {
    const email = address();
    await post({ email }, { headers: { origin: org.origin } });
    const token = tokenIn((await ses.to(email))[0]);
    for (const method of ["GET", "HEAD"]) {
      await forms.handle(
        new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`, { method }),
      );
    }
    const rows = await forms.database.db
      .select()
      .from(organizationSubscribers)
      .where(eq(organizationSubscribers.organizationId, org.id));
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256").update(email.toLowerCase()).digest("hex");
    expect(rows.some((row) => row.emailHash === hash)).toBe(false);
  });
});
