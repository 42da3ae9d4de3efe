import { unclearedAssetUrls, withoutUrls } from "@newsroom/shared/asset-urls";
import { ApiError } from "@newsroom/shared/errors";
import { log } from "@newsroom/shared/log";
import type { NewsletterRunOut } from "@newsroom/shared/mailings";
import {
  chooseWeek,
  emptyRun,
  ISSUE_ITEMS_MAX,
  recordUntil,
  type SendDeps,
} from "./digest-send.ts";
import { composeIssue } from "./issue.ts";
import { newsletterList } from "./lists.ts";
import { sendCopies } from "./send-copies.ts";
import { findOrganization, newsroomAddressOf, publishedBetween } from "./store.ts";

/**
 * Sends an organization's newsletter for a week: its stories published that week, to every
 * opted-in contact of its SES contact list, at most once per subscriber and week (each copy is
 * claimed in the database before it is sent).
 */
export async function sendOrganizationNewsletter(
  deps: SendDeps,
  orgIdOrSlug: string,
  weekName: string | undefined,
): Promise<NewsletterRunOut> {
  const { mailer, contactLists } = deps;
  if (!mailer) throw new ApiError("forms_unavailable", "Email is not configured here.");
  if (!contactLists) {
    throw new ApiError(
      "forms_unavailable",
      "No SES contact lists here (SES_CONTACTS_ENDPOINT): organization subscribers live only there.",
    );
  }
  const organization = await findOrganization(deps.db, orgIdOrSlug);
  if (!organization) throw new ApiError("not_found", "No such organization.");
  if (!organization.newsletterEnabled) {
    throw new ApiError("conflict", "This organization's newsletter is turned off.");
  }
  const week = chooseWeek(weekName, deps.now());
  const run: NewsletterRunOut = {
    object: "newsletter_run",
    organization: organization.slug,
    ...emptyRun(week),
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
    kind: "newsletter",
    items,
    more: listed.length - items.length,
    newsroomUrl: home ?? "",
  });
  await sendCopies(
    {
      db: deps.db,
      mailer,
      now: deps.now,
      list: newsletterList(contactLists, organization),
      issue,
      fromName: organization.name,
      week: week.name,
      recordUntil: recordUntil(week),
    },
    run,
  );
  log.info("organization newsletter sent", { ...run });
  return run;
}
