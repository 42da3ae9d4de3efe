import { describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { newsletterOrg } from "./support/fixtures.ts";
import { address, envelope } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

/** What a mail client shows as the sender: the From header read by a real MIME parser. */
async function shownSender(from: string) {
  const parsed = await simpleParser(`From: ${from}\r\nSubject: x\r\n\r\nbody\r\n`);
  return parsed.from?.value[0];
}

describe("an organization's name as the sender of its emails", () => {
  const names = [
    "Zürcher Zeitung",
    "東京新聞",
    "Rocket 🚀 News",
    'Smith, "Jo" & Partners',
    'Zürich, "Die" Zeitung (AG) \\ Verlag',
    `Die ${"ü".repeat(60)} Zeitung`,
  ];
  for (const name of names) {
    test(`"${name}" reaches SES as ASCII and reads back as the name`, async () => {
      const org = await newsletterOrg(forms.database.db, { name });
      const email = address("sender");
      const response = await forms.post(
        `/v1/public/newsletter/${org.slug}/subscribe`,
        { email, consent: true, ...envelope() },
        { headers: { origin: org.origin, accept: "application/json" } },
      );
      expect(response.status).toBe(202);
      const [sent] = await ses.to(email);
      expect(sent?.from).toMatch(/^[\x20-\x7e]+$/);
      expect(await shownSender(sent!.from)).toEqual({ name, address: "forms@example.com" });
    });
  }
});
