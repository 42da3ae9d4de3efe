import { describe, expect, test } from "bun:test";
import { organizationSubscribers } from "@newsroom/shared/db/schema";
import { updateOrganizationRow } from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import { type NewsletterOrg, newsletterOrg, subscribeTo } from "./support/fixtures.ts";
import {
  address,
  awayFromMinuteEdge,
  envelope,
  type PostInit,
  startRefusingProvider,
  tokenIn,
} from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms, org } = formsWorld({ org: {} });

const JSON_ACCEPT = { accept: "application/json" };

const subscribe = (
  target: NewsletterOrg,
  body: Record<string, unknown>,
  init: PostInit = {},
  harness = forms,
) => subscribeTo(harness, target, body, init);

type ErrorBody = { error: { code: string; fields?: { field: string; reason: string }[] } };

describe("organization subscribe errors", () => {
  test("an unknown or malformed organization is 404", async () => {
    for (const slug of ["no-such-org", "Not_A_Slug", "-bad-"]) {
      const response = await forms.post(
        `/v1/public/newsletter/${slug}/subscribe`,
        { email: address(), consent: true, ...envelope() },
        { headers: { origin: org.origin } },
      );
      expect({ slug, status: response.status }).toEqual({ slug, status: 404 });
      expect(((await response.json()) as ErrorBody).error.code).toBe("not_found");
    }
  });

  test("a turned-off newsletter is 404 for JSON and ?newsletter=closed for a form post", async () => {
    const closed = await newsletterOrg(forms.database.db, { enabled: false });
    const email = address();
    const json = await subscribe(closed, { email }, { headers: JSON_ACCEPT });
    expect(json.status).toBe(404);
    expect(json.headers.get("access-control-allow-origin")).toBe(closed.origin);
    const form = await subscribe(closed, { email }, { as: "form" });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe(`${closed.origin}/?newsletter=closed`);
    expect(await ses.to(email)).toHaveLength(0);
  });

  test("invalid fields are 422 for JSON and ?newsletter=invalid for a form post", async () => {
    const json = await subscribe(org, { email: "nope", consent: false }, { headers: JSON_ACCEPT });
    expect(json.status).toBe(422);
    expect(((await json.json()) as ErrorBody).error.fields).toEqual([
      expect.objectContaining({ field: "email", reason: "invalid_email" }),
      expect.objectContaining({ field: "consent", reason: "must_be_true" }),
    ]);
    const form = await subscribe(
      org,
      { email: "nope", redirect: `${org.origin}/thanks` },
      { as: "form", headers: { referer: `${org.origin}/signup` } },
    );
    expect(form.status).toBe(303);
    // Back to `redirect` (on an allowed origin), naming the fields at fault.
    expect(form.headers.get("location")).toBe(
      `${org.origin}/thanks?newsletter=invalid&newsletter_fields=email`,
    );
    const withoutRedirect = await subscribe(
      org,
      { email: "nope" },
      { as: "form", headers: { referer: `${org.origin}/signup` } },
    );
    expect(withoutRedirect.headers.get("location")).toBe(
      `${org.origin}/signup?newsletter=invalid&newsletter_fields=email`,
    );
  });

  test("a form post returns to its redirect for every outcome, the Referer cut to the origin", async () => {
    const redirect = `${org.origin}/static/newsletter.html?from=footer`;
    const referer = `${org.origin}/`;
    const invalid = await subscribe(
      org,
      { email: address(), consent: false, redirect },
      { as: "form", headers: { referer } },
    );
    expect(invalid.headers.get("location")).toBe(
      `${redirect}&newsletter=invalid&newsletter_fields=consent`,
    );
    const closed = await newsletterOrg(forms.database.db, { enabled: false });
    const closedRedirect = `${closed.origin}/static/newsletter.html`;
    const shut = await subscribe(
      closed,
      { email: address(), redirect: closedRedirect },
      { as: "form", headers: { referer: `${closed.origin}/` } },
    );
    expect(shut.headers.get("location")).toBe(`${closedRedirect}?newsletter=closed`);
    const human = await subscribe(
      org,
      { email: address(), human_check_token: "wrong", redirect },
      { as: "form", headers: { referer } },
    );
    expect(human.headers.get("location")).toBe(
      `${redirect}&newsletter=invalid&newsletter_fields=human_check_token`,
    );
  });

  test("a failed human check is 422 naming human_check_token", async () => {
    const email = address();
    const json = await subscribe(
      org,
      { email, human_check_token: "wrong" },
      { headers: JSON_ACCEPT },
    );
    expect(json.status).toBe(422);
    expect(((await json.json()) as ErrorBody).error.fields).toEqual([
      expect.objectContaining({ field: "human_check_token", reason: "human_check_failed" }),
    ]);
    const form = await subscribe(org, { email, human_check_token: "wrong" }, { as: "form" });
    expect(form.headers.get("location")).toBe(
      `${org.origin}/?newsletter=invalid&newsletter_fields=human_check_token`,
    );
    expect(await ses.to(email)).toHaveLength(0);
  });

  test("other content types are 415, big bodies 413", async () => {
    const text = await forms.post(`/v1/public/newsletter/${org.slug}/subscribe`, "email=x", {
      headers: { origin: org.origin, "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    const big = await subscribe(org, { email: address(), pad: "x".repeat(70_000) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as ErrorBody).error.code).toBe("body_too_large");
  });

  test("a sixth request in a minute from one client is 429", async () => {
    const ip = "10.66.0.1";
    await awayFromMinuteEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await subscribe(org, { email: address() }, { ip })).status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
  });

  test("at most two confirmations an hour to one address, answered the same", async () => {
    const email = address();
    const answers: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await subscribe(org, { email }, { headers: JSON_ACCEPT });
      answers.push(`${response.status} ${await response.text()}`);
    }
    expect(new Set(answers)).toEqual(new Set(['202 {"status":"pending"}']));
    expect(await ses.to(email)).toHaveLength(2);
    forms.clock.advance(3600_000 + 1_000);
    try {
      await subscribe(org, { email }, { headers: JSON_ACCEPT });
      expect(await ses.to(email)).toHaveLength(3);
    } finally {
      forms.clock.advance(-(3600_000 + 1_000));
    }
  });
});

describe("the confirmation throttle counts every organization", () => {
  test("three organizations' newsletters in an hour: two confirmations reach the address", async () => {
    const email = address("many-lists");
    const answers: string[] = [];
    for (const target of [
      org,
      ...(await Promise.all([1, 2].map(() => newsletterOrg(forms.database.db)))),
    ]) {
      const response = await subscribe(target, { email }, { headers: JSON_ACCEPT });
      answers.push(`${response.status} ${await response.text()}`);
    }
    expect(answers).toEqual(Array(3).fill('202 {"status":"pending"}'));
    expect(await ses.to(email)).toHaveLength(2);
  });
});

describe("organization confirmation errors", () => {
  async function orgToken() {
    const email = address();
    expect((await subscribe(org, { email })).status).toBe(202);
    return { email, token: tokenIn((await ses.to(email))[0]) };
  }

  test("an expired link is 410 on the page, the button and for JSON", async () => {
    const { email, token } = await orgToken();
    forms.clock.advance(48 * 3600_000 + 1_000);
    try {
      const page = await forms.handle(
        new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`),
      );
      expect(page.status).toBe(410);
      const post = await forms.post("/v1/public/newsletter/confirm", { t: token }, { as: "form" });
      expect(post.status).toBe(410);
      expect(post.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const json = await forms.post(
        "/v1/public/newsletter/confirm",
        { t: token },
        { as: "form", headers: JSON_ACCEPT },
      );
      expect(json.status).toBe(410);
      expect(await json.json()).toEqual({ status: "expired" });
    } finally {
      forms.clock.advance(-(48 * 3600_000 + 1_000));
    }
    expect((await ses.to(email)).length).toBe(1);
  });

  test("unknown and malformed tokens are 410", async () => {
    for (const t of ["B".repeat(43), "x", `${"B".repeat(42)}!`]) {
      const page = await forms.handle(
        new Request(`http://localhost/v1/public/newsletter/confirm?t=${encodeURIComponent(t)}`),
      );
      expect(page.status).toBe(410);
      const post = await forms.post("/v1/public/newsletter/confirm", { t }, { as: "form" });
      expect(post.status).toBe(410);
    }
    const none = await forms.handle(new Request("http://localhost/v1/public/newsletter/confirm"));
    expect(none.status).toBe(410);
  });

  test("a body without a readable t is the 410 expired answer, page or JSON", async () => {
    const multipart = new FormData();
    multipart.append("other", "x");
    const bodies: [string, BodyInit | object, PostInit][] = [
      ["{} as JSON", {}, {}],
      ["t as a number", { t: 42 }, {}],
      ["malformed JSON", "{", { headers: { "content-type": "application/json" } }],
      ["multipart without t", multipart, {}],
      ["urlencoded without t", { other: "x" }, { as: "form" }],
      [
        "bytes that are not UTF-8",
        new Uint8Array([0x74, 0x3d, 0xff, 0xfe, 0xc3]),
        { headers: { "content-type": "application/x-www-form-urlencoded" } },
      ],
    ];
    for (const [what, body, init] of bodies) {
      const page = await forms.post("/v1/public/newsletter/confirm", body, init);
      expect({ what, status: page.status }).toEqual({ what, status: 410 });
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await page.text()).toContain("This link has expired");
      const json = await forms.post("/v1/public/newsletter/confirm", body, {
        ...init,
        headers: { ...init.headers, ...JSON_ACCEPT },
      });
      expect({ what, status: json.status }).toEqual({ what, status: 410 });
      expect(await json.json()).toEqual({ status: "expired" });
    }
  });

  test("a body that is not form data or JSON is 415, with or without Accept JSON", async () => {
    for (const headers of [{}, JSON_ACCEPT]) {
      const response = await forms.post("/v1/public/newsletter/confirm", `t=${"A".repeat(43)}`, {
        headers: { ...headers, "content-type": "text/plain" },
      });
      expect(response.status).toBe(415);
      expect(((await response.json()) as ErrorBody).error.code).toBe("unsupported_body");
    }
  });

  test("a link of a newsletter turned off since is 410", async () => {
    const closing = await newsletterOrg(forms.database.db);
    const email = address();
    await subscribe(closing, { email });
    const token = tokenIn((await ses.to(email))[0]);
    await updateOrganizationRow(forms.database.db, closing.id, { newsletterEnabled: false });
    const post = await forms.post("/v1/public/newsletter/confirm", { t: token }, { as: "form" });
    expect(post.status).toBe(410);
  });

  test("a refused welcome email is 502 and the link stays usable", async () => {
    const { email, token } = await orgToken();
    const refusing = startRefusingProvider(503);
    const broken = await forms.sibling({ SES_ENDPOINT: refusing.url });
    try {
      const page = await broken.post("/v1/public/newsletter/confirm", { t: token }, { as: "form" });
      expect(page.status).toBe(502);
      expect(await page.text()).toContain("Your link still works");
      const json = await broken.post(
        "/v1/public/newsletter/confirm",
        { t: token },
        { as: "form", headers: JSON_ACCEPT },
      );
      expect(json.status).toBe(502);
      expect(((await json.json()) as ErrorBody).error.code).toBe("delivery_failed");
    } finally {
      await broken.close();
      refusing.close();
    }
    const rows = await forms.database.db
      .select()
      .from(organizationSubscribers)
      .where(eq(organizationSubscribers.organizationId, org.id));
    const before = rows.length;
    const ok = await forms.post("/v1/public/newsletter/confirm", { t: token }, { as: "form" });
    expect(ok.status).toBe(200);
    const after = await forms.database.db
      .select()
      .from(organizationSubscribers)
      .where(eq(organizationSubscribers.organizationId, org.id));
    expect(after.length).toBe(before + 1);
    expect((await ses.to(email)).length).toBe(2);
  });

  test("not configured: 503 for subscribe, the page and the button", async () => {
    const off = await forms.sibling({ FORMS_FROM_EMAIL: undefined });
    try {
      expect((await subscribe(org, { email: address() }, {}, off)).status).toBe(503);
      const page = await off.handle(
        new Request(`http://localhost/v1/public/newsletter/confirm?t=${"C".repeat(43)}`),
      );
      // People who open the link see a page, not the Error record.
      expect(page.status).toBe(503);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await page.text()).toContain("Newsletters are unavailable");
      const post = await off.post(
        "/v1/public/newsletter/confirm",
        { t: "C".repeat(43) },
        {
          as: "form",
        },
      );
      expect(post.status).toBe(503);
      expect(await post.text()).toContain("Newsletters are unavailable");
      const fromScript = await off.post(
        "/v1/public/newsletter/confirm",
        { t: "C".repeat(43) },
        { headers: { accept: "application/json" } },
      );
      expect(fromScript.status).toBe(503);
      expect((await fromScript.json()).error.code).toBe("forms_unavailable");
    } finally {
      await off.close();
    }
  });
});
