import { expect, test } from "bun:test";
import { formSubmissions, newsletterConfirmations } from "@newsroom/shared/db/schema";
import { sweepExpired } from "../src/sweep.ts";
import { address, envelope, validContact } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

test("expired submission ids and confirmation links are forgotten, with their addresses", async () => {
  const db = forms.database.db;
  const contact = validContact();
  expect((await forms.post("/v1/public/contact", contact)).status).toBe(202);
  const email = address();
  await forms.post("/v1/public/newsletter/subscribe", { email, consent: true, ...envelope() });
  expect((await db.select().from(formSubmissions)).length).toBeGreaterThan(0);
  expect((await db.select().from(newsletterConfirmations)).length).toBeGreaterThan(0);

  expect(await sweepExpired({ db, now: () => new Date(Date.now() + 3600_000) })).toEqual({
    submissions: 0,
    confirmations: 0,
  });
  const later = () => new Date(Date.now() + 49 * 3600_000);
  const swept = await sweepExpired({ db, now: later });
  expect(swept.submissions).toBeGreaterThan(0);
  expect(swept.confirmations).toBeGreaterThan(0);
  expect(await db.select().from(formSubmissions)).toHaveLength(0);
  expect(await db.select().from(newsletterConfirmations)).toHaveLength(0);

  // A forgotten submission id is a new submission: it sends again.
  expect((await forms.post("/v1/public/contact", contact)).status).toBe(202);
  expect(await ses.to(contact.email)).toHaveLength(2);
});
