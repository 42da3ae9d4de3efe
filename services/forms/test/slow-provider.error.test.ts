import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newsletterConfirmations } from "@newsroom/shared/db/schema";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { requireService, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { inArray, sql } from "drizzle-orm";
import { digestSetup } from "./support/digest.ts";
import { type NewsletterOrg, newsletterOrg, publishedStory } from "./support/fixtures.ts";
import {
  address,
  envelope,
  type FormsHarness,
  formsHarness,
  random,
  startSesEmulator,
  startSilentProvider,
} from "./support/harness.ts";

/**
 * No network call runs inside a database transaction: ten subscribes waiting on an email
 * provider that never answers hold no connection (PGlite has only one), and every SES call
 * gives up at SES_TIMEOUT_MS.
 */
const TIMEOUT_MS = 2_000;
const backends: ("pglite" | "postgres")[] = requireService("DATABASE_URL")
  ? ["pglite", "postgres"]
  : ["pglite"];

/** Resolves with the value, or with "too slow" after `ms`. */
function within<T>(ms: number, work: Promise<T>): Promise<T | "too slow"> {
  return Promise.race([work, Bun.sleep(ms).then(() => "too slow" as const)]);
}

for (const backend of backends) {
  describe(`an email provider that never answers (${backend})`, () => {
    let silent: Awaited<ReturnType<typeof startSilentProvider>>;
    let forms: FormsHarness;
    let org: NewsletterOrg;
    const rateLimits = new MemoryRateLimitStore();

    beforeAll(async () => {
      silent = await startSilentProvider();
      const database = await testDatabase({ backend });
      forms = await formsHarness(
        { SES_ENDPOINT: silent.url, SES_TIMEOUT_MS: String(TIMEOUT_MS) },
        { database, rateLimits },
      );
      org = await newsletterOrg(database.db);
    });

    afterAll(async () => {
      await forms.close();
      await forms.database.close();
      await rateLimits.close();
      await silent.close();
    });

    test("ten subscribes wait on it while routes that read the database answer within a second", async () => {
      const emails = Array.from({ length: 10 }, () => address("slow"));
      const started = Date.now();
      const inFlight = emails.map((email, i) =>
        i % 2 === 0
          ? forms.post("/v1/public/newsletter/subscribe", { email, consent: true, ...envelope() })
          : forms.post(
              `/v1/public/newsletter/${org.slug}/subscribe`,
              { email, consent: true, ...envelope() },
              { headers: { origin: org.origin, accept: "application/json" } },
            ),
      );
      await eventually(
        () => silent.held(),
        (held) => held >= 10,
        { message: "the ten sends to reach the provider", timeoutMs: 3_000 },
      );

      const page = await within(
        1_000,
        forms.handle(
          new Request(`http://localhost/v1/public/newsletter/confirm?t=${"Q".repeat(43)}`),
        ),
      );
      expect(page === "too slow" ? page : page.status).toBe(410);
      const query = await within(1_000, forms.database.db.execute(sql`select 1`));
      expect(query === "too slow" ? query : "answered").toBe("answered");

      // Each send gives up at the timeout: 502, and no confirmation is left to throttle a retry.
      const statuses = await Promise.all(inFlight.map(async (answer) => (await answer).status));
      expect(statuses).toEqual(Array(10).fill(502));
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5_000);
      const left = await forms.database.db
        .select()
        .from(newsletterConfirmations)
        .where(inArray(newsletterConfirmations.email, emails));
      expect(left).toHaveLength(0);
    });
  });
}

describe("the weekly digest and a provider that never answers", () => {
  test("the run ends at the timeout with the copy unconfirmed, and never sends it again", async () => {
    const ses = await startSesEmulator();
    const silent = await startSilentProvider();
    const setup = await digestSetup(ses);
    try {
      const email = address("digest-slow");
      await setup.subscriber(email);
      await publishedStory(setup.forms.database.db, setup.house.slug, {
        slug: `s-${random()}`,
        title: "A story",
        publishedAt: new Date(setup.forms.clock.now().getTime() - 3600_000),
      });
      const slow = await setup.formsWith({
        SES_ENDPOINT: silent.url,
        SES_TIMEOUT_MS: String(TIMEOUT_MS),
      });
      const run = await within(TIMEOUT_MS + 5_000, setup.send({}, slow));
      expect(run === "too slow" ? run : run.status).toBe(200);
      const body = run === "too slow" ? null : await run.json();
      expect(body).toMatchObject({ sent: 0, unconfirmed: 1 });

      const again = await setup.send();
      expect(await again.json()).toMatchObject({ sent: 0, already_sent: 1 });
      expect(await ses.to(email)).toHaveLength(2); // the confirmation and the welcome only
    } finally {
      await setup.close();
      await silent.close();
      await ses.close();
    }
  });
});
