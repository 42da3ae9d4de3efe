import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formSubmissions } from "@newsroom/shared/db/schema";
import { updateOrganizationRow } from "@newsroom/shared/testing/builders";
import { like } from "drizzle-orm";
import { type ContactsServer, startContactsServer } from "./support/contacts-server.ts";
import { ADMIN_TOKEN, internalPost, toMidweek } from "./support/digest.ts";
import { type NewsletterOrg, newsletterOrg, publishedStory } from "./support/fixtures.ts";
import { address, envelope, type FormsHarness, formsHarness } from "./support/harness.ts";

/**
 * `npm run admin -- newsletter send <org>`: an organization's stories of the week to the
 * opted-in contacts of its SES contact list, once per subscriber and week, with SES list
 * management (its RFC 8058 headers and unsubscribe link). Subscribers are never stored here.
 */
const DAY = 24 * 3600_000;
let contacts: ContactsServer;
let forms: FormsHarness;
let org: NewsletterOrg;

beforeAll(async () => {
  // The stand-in answers sends too: the issues are read from what it was sent.
  contacts = startContactsServer();
  forms = await formsHarness({
    SES_ENDPOINT: contacts.url,
    SES_CONTACTS_ENDPOINT: contacts.url,
    ADMIN_TOKEN,
  });
  toMidweek(forms);
  org = await newsletterOrg(forms.database.db, { site: {} });
  await updateOrganizationRow(forms.database.db, org.id, { newsroomRunning: true });
});

afterAll(async () => {
  await forms.close();
  contacts.close();
});

/** The forms service's internal API (the workspace forwards its operators' command here). */
const send = (slug: string) =>
  forms.handle(internalPost(`/internal/v1/orgs/${slug}/newsletter/send`));

describe("newsletter send", () => {
  test("the week's stories go once to each opted-in contact, through SES list management", async () => {
    const now = forms.clock.now().getTime();
    await publishedStory(forms.database.db, org.slug, {
      slug: "this-week",
      title: "News of this week",
      publishedAt: new Date(now - DAY),
    });
    await publishedStory(forms.database.db, org.slug, {
      slug: "last-week",
      title: "Old news",
      publishedAt: new Date(now - 8 * DAY),
    });
    const list = `org-${org.id}`;
    const [first, second, gone] = [address("a"), address("b"), address("gone")];
    contacts.seed(list, first);
    contacts.seed(list, second);
    contacts.seed(list, gone, true);

    const response = await send(org.slug);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: "newsletter_run",
      organization: org.slug,
      items: 1,
      subscribers: 2,
      sent: 2,
      already_sent: 0,
      failed: 0,
    });
    const copies = contacts.sent.filter((mail) => mail.ListManagementOptions);
    expect(copies.map((mail) => mail.Destination.ToAddresses[0]).sort()).toEqual(
      [first, second].sort(),
    );
    for (const copy of copies) {
      expect(copy.ListManagementOptions).toEqual({ ContactListName: list });
      const text: string = copy.Content.Simple.Body.Text.Data;
      expect(text).toContain("News of this week");
      expect(text).not.toContain("Old news");
      expect(text).toContain("Unsubscribe: {{amazonSESUnsubscribeUrl}}");
      expect(copy.Content.Simple.Body.Html.Data).toContain('href="{{amazonSESUnsubscribeUrl}}"');
      expect(copy.Content.Simple.Subject.Data).toContain("newsletter:");
    }

    const again = await (await send(org.slug)).json();
    expect(again).toMatchObject({ sent: 0, already_sent: 2 });
    expect(contacts.sent.filter((mail) => mail.ListManagementOptions)).toHaveLength(2);
    // Each copy is recorded under a derived id: no address is stored.
    const records = await forms.database.db
      .select()
      .from(formSubmissions)
      .where(like(formSubmissions.route, `newsletter:${org.id}:%`));
    expect(records).toHaveLength(2);
    expect(JSON.stringify(records)).not.toContain(first);
  });

  test("a turned-off newsletter is refused; without stories nothing is sent", async () => {
    const off = await newsletterOrg(forms.database.db, { enabled: false });
    expect((await send(off.slug)).status).toBe(409);
    const quiet = await newsletterOrg(forms.database.db);
    await updateOrganizationRow(forms.database.db, quiet.id, { newsroomRunning: true });
    contacts.seed(`org-${quiet.id}`, address("quiet"));
    const before = contacts.sent.length;
    expect(await (await send(quiet.slug)).json()).toMatchObject({ items: 0, sent: 0 });
    expect(contacts.sent).toHaveLength(before);
  });

  test("the welcome email carries the unsubscribe link it promises", async () => {
    const email = address("welcome");
    const subscribed = await forms.post(
      `/v1/public/newsletter/${org.slug}/subscribe`,
      { email, consent: true, ...envelope(forms.clock.now().getTime()) },
      { headers: { origin: org.origin, accept: "application/json" } },
    );
    expect(subscribed.status).toBe(202);
    const confirmation = contacts.sent.find((mail) => mail.Destination.ToAddresses[0] === email);
    const token = /[?&]t=([A-Za-z0-9_-]{43})/.exec(confirmation.Content.Simple.Body.Text.Data)![1]!;
    const confirmed = await forms.post(
      "/v1/public/newsletter/confirm",
      { t: token },
      { headers: { accept: "application/json" } },
    );
    expect(confirmed.status).toBe(200);
    const welcome = contacts.sent.find(
      (mail) =>
        mail.Destination.ToAddresses[0] === email &&
        mail.Content.Simple.Subject.Data.startsWith("You are subscribed"),
    );
    expect(welcome.ListManagementOptions).toEqual({ ContactListName: `org-${org.id}` });
    expect(welcome.Content.Simple.Body.Text.Data).toContain("{{amazonSESUnsubscribeUrl}}");
  });
});
