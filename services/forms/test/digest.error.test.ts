import { describe, expect, test } from "bun:test";
import { digestSubscriptions } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { newsletterOrg } from "./support/fixtures.ts";
import {
  address,
  envelope,
  type FormsHarness,
  startRefusingProvider,
  tokenIn,
} from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

async function digestToken(email = address("reader")) {
  const response = await forms.post("/v1/public/newsletter/subscribe", {
    email,
    consent: true,
    ...envelope(),
  });
  expect(response.status).toBe(202);
  return { email, token: tokenIn((await ses.to(email)).at(-1)) };
}

const confirm = (harness: FormsHarness, t: unknown) =>
  harness.post("/v1/public/newsletter/subscribe/confirm", { t });

async function expectExpired(response: Response) {
  expect(response.status).toBe(410);
  expect(await response.json()).toEqual({ status: "expired" });
}

describe("digest confirmation failures", () => {
  test("an expired link (past 48 hours) is 410 expired and subscribes no one", async () => {
    const { email, token } = await digestToken();
    forms.clock.advance(48 * 3600_000 + 1_000);
    try {
      await expectExpired(await confirm(forms, token));
      const page = await forms.handle(
        new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`),
      );
      expect(page.status).toBe(410);
    } finally {
      forms.clock.advance(-(48 * 3600_000 + 1_000));
    }
    const rows = await forms.database.db
      .select()
      .from(digestSubscriptions)
      .where(eq(digestSubscriptions.email, email));
    expect(rows).toHaveLength(0);
  });

  test("just before 48 hours the link still works", async () => {
    const { token } = await digestToken();
    forms.clock.advance(48 * 3600_000 - 60_000);
    try {
      expect((await confirm(forms, token)).status).toBe(200);
    } finally {
      forms.clock.advance(-(48 * 3600_000 - 60_000));
    }
  });

  test("unknown and malformed tokens are 410 expired", async () => {
    for (const t of [
      "A".repeat(43),
      "short",
      "A".repeat(44),
      `${"A".repeat(42)}=`,
      `${"A".repeat(42)}/`,
      42,
    ]) {
      await expectExpired(await confirm(forms, t));
    }
  });

  test("a missing token is 422 naming t", async () => {
    const response = await forms.post("/v1/public/newsletter/subscribe/confirm", {});
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { fields: { field: string }[] } };
    expect(body.error.fields.map((f) => f.field)).toEqual(["t"]);
  });

  test("an organization newsletter's token is 410 here, and a digest token is 410 there", async () => {
    const org = await newsletterOrg(forms.database.db);
    const email = address("reader");
    const subscribed = await forms.post(
      `/v1/public/newsletter/${org.slug}/subscribe`,
      { email, consent: true, ...envelope() },
      { headers: { origin: org.origin } },
    );
    expect(subscribed.status).toBe(202);
    const orgToken = tokenIn((await ses.to(email))[0]);
    await expectExpired(await confirm(forms, orgToken));

    const { token } = await digestToken();
    const there = await forms.post(
      "/v1/public/newsletter/confirm",
      { t: token },
      { as: "form", headers: { accept: "application/json" } },
    );
    await expectExpired(there);
  });

  test("a refused welcome email is 502 and the link stays usable", async () => {
    const { email, token } = await digestToken();
    const refusing = startRefusingProvider(500);
    const broken = await forms.sibling({ SES_ENDPOINT: refusing.url });
    try {
      const response = await confirm(broken, token);
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        "delivery_failed",
      );
    } finally {
      await broken.close();
      refusing.close();
    }
    const rows = await forms.database.db
      .select()
      .from(digestSubscriptions)
      .where(eq(digestSubscriptions.email, email));
    expect(rows).toHaveLength(0);
    expect((await confirm(forms, token)).status).toBe(200);
    expect((await ses.to(email)).map((e) => e.subject)).toEqual([
      "Confirm your subscription to the weekly digest",
      "Welcome to the weekly digest",
    ]);
  });

  test("a refused confirmation email is 502, and the retry is not throttled", async () => {
    const email = address("reader");
    const body = { email, consent: true, ...envelope() };
    const refusing = startRefusingProvider(400);
    const broken = await forms.sibling({ SES_ENDPOINT: refusing.url });
    try {
      expect((await broken.post("/v1/public/newsletter/subscribe", body)).status).toBe(502);
    } finally {
      await broken.close();
      refusing.close();
    }
    expect((await forms.post("/v1/public/newsletter/subscribe", body)).status).toBe(202);
    expect(await ses.to(email)).toHaveLength(1);
  });

  test("a subscribe without consent is 422", async () => {
    const email = address("reader");
    const response = await forms.post("/v1/public/newsletter/subscribe", {
      email,
      consent: false,
      ...envelope(),
    });
    expect(response.status).toBe(422);
    expect(await ses.to(email)).toHaveLength(0);
  });
});
