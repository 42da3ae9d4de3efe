import { createHash } from "node:crypto";
import { unclearedAssetUrls, withoutUrls } from "@newsroom/shared/asset-urls";
import type { Config } from "@newsroom/shared/config";
import { type ContactListReader, contactListOf } from "@newsroom/shared/contact-lists";
import type { Db } from "@newsroom/shared/db/index";
import { ApiError } from "@newsroom/shared/errors";
import { log } from "@newsroom/shared/log";
import { type Mailer, SES_UNSUBSCRIBE_URL } from "@newsroom/shared/mailer";
import { composeIssue } from "../digest/email.ts";
import { sendCopies } from "../digest/send-copies.ts";
import { chooseWeek, copyId, ISSUE_ITEMS_MAX } from "../digest/service.ts";
import { publishedBetween } from "../digest/store.ts";
import { findOrganization } from "../resolve.ts";
import { newsroomAddressOf } from "./store.ts";

export interface OrganizationNewsletterDeps {
  db: Db;
  config: Pick<Config, "NEWSROOM_HOST">;
  mailer: Mailer | null;
  /** The organization's subscribers live in SES contact lists; null where there are none. */
  contactLists: ContactListReader | null;
  now: () => Date;
}

const DAY_MS = 24 * 3600_000;
const RECORD_AFTER_END_MS = 35 * DAY_MS;

/** What one run did; a second run for the same week finds every subscriber already served. */
export interface OrganizationNewsletterRun {
  object: "newsletter_run";
  organization: string;
  week: string;
  starts_at: string;
  ends_at: string;
  items: number;
  subscribers: number;
  sent: number;
  already_sent: number;
  failed: number;
  unconfirmed: number;
  stopped: boolean;
}

/**
 * The record of one week's copy to one subscriber: a UUID from the organization, the week and
 * the SHA-256 of the address. The address itself is never stored (subscribers live only in the
 * organization's SES contact list).
 */
function newsletterCopyId(organizationId: string, email: string, week: string): string {
  const address = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return copyId(`newsletter:${organizationId}:${address}`, week);
}

/**
 * Sends an organization's newsletter for a week: its stories published that week, to every
 * opted-in contact of its SES contact list, at most once per subscriber and week (each copy is
 * claimed in the database before it is sent). Each copy is sent with SES list management, so SES
 * adds the `List-Unsubscribe` and `List-Unsubscribe-Post` (RFC 8058) headers and the contact's
 * own unsubscribe link in the body.
 */
export async function sendOrganizationNewsletter(
  deps: OrganizationNewsletterDeps,
  orgIdOrSlug: string,
  weekName: string | undefined,
): Promise<OrganizationNewsletterRun> {
  const { mailer, contactLists } = deps;
  if (!mailer) throw new ApiError("forms_unavailable", "Email is not configured here.");
  if (!contactLists) {
    throw new ApiError(
      "forms_unavailable",
      "No SES contact lists here (SES_CONTACTS_ENDPOINT): organization subscribers live only there.",
    );
  }
  const organization = await findOrganization(deps.db, orgIdOrSlug);
  if (!organization.newsletterEnabled) {
    throw new ApiError("conflict", "This organization's newsletter is turned off.");
  }
  const now = deps.now();
  const week = chooseWeek(weekName, now);
  const run: OrganizationNewsletterRun = {
    object: "newsletter_run",
    organization: organization.slug,
    week: week.name,
    starts_at: week.start.toISOString(),
    ends_at: week.end.toISOString(),
    items: 0,
    subscribers: 0,
    sent: 0,
    already_sent: 0,
    failed: 0,
    unconfirmed: 0,
    stopped: false,
  };
  if (!organization.newsroomRunning) return run;
  const listed = await publishedBetween(deps.db, organization.id, week.start, week.end, 100_000);
  run.items = listed.length;
  if (listed.length === 0) return run;

  const home = await newsroomAddressOf(deps.db, organization.id, deps.config.NEWSROOM_HOST);
  const shown = listed.slice(0, ISSUE_ITEMS_MAX);
  // An email is a public surface: an uncleared asset's URL in a title or summary is removed.
  const uncleared = await unclearedAssetUrls(deps.db, organization.id, [
    shown.map((item) => [item.title, item.summary]),
  ]);
  const items = withoutUrls(shown, uncleared).map((item) => ({
    ...item,
    url: home ? `${home}/${encodeURIComponent(item.slug)}` : "",
  }));
  const issue = composeIssue({
    week,
    newsroomName: organization.name,
    items,
    more: listed.length - items.length,
    newsroomUrl: home ?? "",
  });
  const list = contactListOf(organization);
  const footer = `You receive this because you subscribed to ${organization.name}'s newsletter.`;
  const recordUntil = new Date(week.end.getTime() + RECORD_AFTER_END_MS);
  const route = `newsletter:${organization.id}:${week.name}`;

  const optedIn = async function* () {
    for await (const page of contactLists.optedIn(list.name)) {
      run.subscribers += page.length;
      yield page;
    }
  };
  await sendCopies(
    deps.db,
    deps.now,
    optedIn(),
    {
      week: week.name,
      recordUntil,
      route,
      idOf: (email: string) => newsletterCopyId(organization.id, email, week.name),
      send: (email) =>
        mailer.send({
          to: [email],
          fromName: organization.name,
          subject: issue.subject.replace(" weekly digest:", " newsletter:"),
          text: `${issue.text}\n--\n${footer}\nUnsubscribe: ${SES_UNSUBSCRIBE_URL}\n`,
          html: `${issue.html}
<hr>
<p style="font-size: 0.875rem; color: #57606a;">${footer.replace(/&/g, "&amp;").replace(/</g, "&lt;")}
<a href="${SES_UNSUBSCRIBE_URL}">Unsubscribe</a></p>
</body></html>
`,
          listManagement: { contactListName: list.name },
        }),
      unconfirmed: () =>
        log.warn("newsletter copy unconfirmed", { organization: organization.id, week: week.name }),
    },
    run,
  );
  log.info("organization newsletter sent", { ...run });
  return run;
}
