import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { organizationSubscribers } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import {
  confirmationOf,
  newsletterOrg,
  organizationWelcomes,
  pendingToken,
} from "./support/fixtures.ts";
import { address, startRefusingProvider } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, contacts, forms, org } = formsWorld({ contacts: true, org: {} });

const listOf = (organization: { id: string }) => `org-${organization.id}`;

const pending = (email: string, organization = org) =>
  pendingToken(forms, ses, email, organization);

const confirm = (t: string, harness = forms, headers: Record<string, string> = {}) =>
  harness.post("/v1/public/newsletter/confirm", { t }, { as: "form", headers });

const confirmation = (token: string) => confirmationOf(forms.database.db, token);
const welcomes = (email: string, organization = org) =>
  organizationWelcomes(ses, email, organization);

describe("when SES refuses the contact", () => {
  test("502 (page or JSON), nothing kept, the link stays usable and then works once", async () => {
    const email = address("refused");
    const token = await pending(email);
    contacts.refuseContacts(429);
    try {
      const page = await confirm(token);
      expect(page.status).toBe(502);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const api = await confirm(token, forms, { accept: "application/json" });
      expect(api.status).toBe(502);
      expect(((await api.json()) as { error: { code: string } }).error.code).toBe(
        "delivery_failed",
      );
    } finally {
      contacts.refuseContacts(0);
    }
    const row = await confirmation(token);
    expect(row?.email).toBe(email);
    expect(row?.usedAt).toBeNull();
    expect(await welcomes(email)).toHaveLength(0);
    expect(contacts.list(listOf(org))?.has(email) ?? false).toBe(false);

    expect((await confirm(token)).status).toBe(200);
    expect(contacts.list(listOf(org))?.get(email)).toBe(false);
    expect(await welcomes(email)).toHaveLength(1);
    expect((await confirmation(token))?.email).toBeNull();
  });

  test("past the account's contact-list quota a new organization's confirm is 502", async () => {
    // SES allows one contact list per account: the lists exist for the organizations so far.
    contacts.limitLists(contacts.lists().length);
    const other = await newsletterOrg(forms.database.db);
    const email = address("quota");
    const token = await pending(email, other);
    try {
      expect((await confirm(token)).status).toBe(502);
      expect(contacts.lists()).not.toContain(listOf(other));
      expect((await confirmation(token))?.usedAt).toBeNull();
    } finally {
      contacts.limitLists(Number.POSITIVE_INFINITY);
    }
    expect((await confirm(token)).status).toBe(200);
    expect(contacts.list(listOf(other))?.has(email)).toBe(true);
  });
});

describe("when the welcome email is refused after the contact was added", () => {
  test("502 and nothing kept here; the retry opts the existing contact in and welcomes once", async () => {
    const email = address("welcome");
    const token = await pending(email);
    const provider = startRefusingProvider(400);
    const refusing = await forms.sibling({
      SES_ENDPOINT: provider.url,
      SES_CONTACTS_ENDPOINT: contacts.url,
    });
    try {
      expect((await confirm(token, refusing)).status).toBe(502);
    } finally {
      await refusing.close();
      provider.close();
    }
    expect(contacts.list(listOf(org))?.has(email)).toBe(true); // SES kept it
    expect((await confirmation(token))?.usedAt).toBeNull();
    const kept = await forms.database.db
      .select()
      .from(organizationSubscribers)
      .where(eq(organizationSubscribers.organizationId, org.id));
    const hash = createHash("sha256").update(email).digest("hex");
    expect(kept.some((row) => row.emailHash === hash)).toBe(false);

    expect((await confirm(token)).status).toBe(200);
    expect(contacts.requests.at(-1)?.method).toBe("PUT"); // already there: opted in again
    expect(await welcomes(email)).toHaveLength(1);
  });
});

describe("without a contact-list endpoint", () => {
  test("next to the local emulator there are no contact lists and confirming still works", async () => {
    const local = await forms.sibling({ SES_ENDPOINT: ses.url, SES_CONTACTS_ENDPOINT: undefined });
    try {
      const email = address("local");
      const token = await pending(email);
      const before = contacts.requests.length;
      expect((await confirm(token, local)).status).toBe(200);
      expect(contacts.requests.length).toBe(before);
      expect(await welcomes(email)).toHaveLength(1);
    } finally {
      await local.close();
    }
  });
});
