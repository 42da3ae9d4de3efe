import { describe, expect, test } from "bun:test";
import {
  confirmationOf,
  newsletterOrg,
  organizationWelcomes,
  pendingToken,
  subscribeTo,
} from "./support/fixtures.ts";
import { address } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, contacts, forms, org } = formsWorld({ contacts: true, org: {} });

const listOf = (organization: { id: string }) => `org-${organization.id}`;

const subscribe = (email: string, organization = org, extra: Record<string, unknown> = {}) =>
  subscribeTo(
    forms,
    organization,
    { email, ...extra },
    { headers: { accept: "application/json" } },
  );

const confirm = (t: string) =>
  forms.post("/v1/public/newsletter/confirm", { t }, { as: "form", headers: {} });

const pending = (email: string, organization = org) =>
  pendingToken(forms, ses, email, organization);

const welcomes = (email: string, organization = org) =>
  organizationWelcomes(ses, email, organization);

describe("confirming adds the address to the organization's SES v2 contact list", () => {
  test("the first confirmation creates the list; the row keeps no address; again does nothing", async () => {
    const email = address("visitor");
    const token = await pending(email);
    expect(contacts.list(listOf(org))).toBeUndefined();

    const confirmed = await confirm(token);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("You are subscribed");
    expect(contacts.list(listOf(org))?.get(email)).toBe(false); // on the list, opted in
    expect(await welcomes(email)).toHaveLength(1);

    // What the SDK sent: signed requests, the list named and described per organization.
    const calls = contacts.requests.map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual([
      `POST /v2/email/contact-lists/${listOf(org)}/contacts`,
      "POST /v2/email/contact-lists",
      `POST /v2/email/contact-lists/${listOf(org)}/contacts`,
    ]);
    expect(contacts.requests.every((r) => r.signed)).toBe(true);
    expect(contacts.requests[1]!.body).toEqual({
      ContactListName: listOf(org),
      Description: `Newsletter of ${org.name} (${org.slug})`,
    });
    expect(contacts.requests[2]!.body).toEqual({
      EmailAddress: email,
      UnsubscribeAll: false,
    });

    const row = await confirmationOf(forms.database.db, token);
    expect(row?.email).toBeNull();
    expect(row?.usedAt).not.toBeNull();

    const before = contacts.requests.length;
    expect((await confirm(token)).status).toBe(200);
    expect(contacts.requests.length).toBe(before);
    expect(await welcomes(email)).toHaveLength(1);
  });

  test("later confirmations only add their contact", async () => {
    const email = address("second");
    const token = await pending(email);
    const before = contacts.requests.length;
    expect((await confirm(token)).status).toBe(200);
    expect(contacts.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v2/email/contact-lists/${listOf(org)}/contacts`,
    ]);
    expect(contacts.list(listOf(org))?.get(email)).toBe(false);
  });

  test("an address already on the list (opted out there) is opted in again", async () => {
    const email = address("returning");
    expect((await confirm(await pending(email))).status).toBe(200);
    contacts.list(listOf(org))!.set(email, true); // unsubscribed through SES since
    forms.clock.advance(3600_000); // past the per-address confirmation limit

    // Our list still has the hash, so this confirmation sends no second welcome email.
    const token = await pending(email);
    expect((await confirm(token)).status).toBe(200);
    expect(contacts.list(listOf(org))?.get(email)).toBe(false);
    expect(contacts.requests.at(-1)).toMatchObject({
      method: "PUT",
      path: `/v2/email/contact-lists/${listOf(org)}/contacts/${encodeURIComponent(email)}`,
    });
  });

  test("each organization has its own list", async () => {
    const other = await newsletterOrg(forms.database.db);
    const email = address("both");
    expect((await confirm(await pending(email))).status).toBe(200);
    expect((await confirm(await pending(email, other))).status).toBe(200);
    expect(contacts.list(listOf(org))?.has(email)).toBe(true);
    expect(contacts.list(listOf(other))?.has(email)).toBe(true);
    expect(contacts.lists()).toContain(listOf(other));
  });

  test("two presses of one link at once add the contact once and welcome once", async () => {
    const email = address("double");
    const token = await pending(email);
    const before = contacts.requests.length;
    const answers = await Promise.all([confirm(token), confirm(token)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(contacts.requests.length - before).toBe(1);
    expect(await welcomes(email)).toHaveLength(1);
  });

  test("single opt-in behind a passing human check adds the contact at once", async () => {
    const email = address("human");
    const response = await subscribe(email, org, { human_check_token: "test-pass" });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: "subscribed" });
    expect(contacts.list(listOf(org))?.get(email)).toBe(false);
    expect(await welcomes(email)).toHaveLength(1);
  });

  test("addresses reach the list lower-cased", async () => {
    const email = address("Mixed");
    const token = await pending(email.toUpperCase());
    expect((await confirm(token)).status).toBe(200);
    expect(contacts.list(listOf(org))?.has(email.toLowerCase())).toBe(true);
  });
});
