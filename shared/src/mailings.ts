import { type Static, Type as t } from "@sinclair/typebox";

/**
 * The mailings' internal API (the forms service's `/internal/v1/digest/send` and
 * `/internal/v1/orgs/{org}/newsletter/send`): the body and the answers, which the workspace's
 * routes of the same paths forward and its CLI reads.
 */

/** An ISO 8601 week, such as `2026-W07` (Monday to Sunday, UTC). */
export const ISO_WEEK = "^\\d{4}-W(0[1-9]|[1-4]\\d|5[0-3])$";

/** A send's body: the week to send; the current one when left out. */
export const MailingSendIn = t.Object({
  week: t.Optional(t.String({ pattern: ISO_WEEK, description: "ISO week, e.g. 2026-W07" })),
});
export type MailingSendIn = Static<typeof MailingSendIn>;

/** What every run counts; a second run for the same week finds every subscriber served. */
const RunCounts = {
  week: t.String(),
  starts_at: t.String(),
  ends_at: t.String(),
  /** Published items of the newsroom in the week (nothing is sent when there are none). */
  items: t.Integer(),
  /** Confirmed subscribers when the run started. */
  subscribers: t.Integer(),
  sent: t.Integer(),
  /** Subscribers this week's issue had already gone to (or was going to, in another run). */
  already_sent: t.Integer(),
  /** Refused by the provider: not recorded, so the next run for the week tries them again. */
  failed: t.Integer(),
  /** The provider did not answer: the copy may have arrived, so it is never sent again. */
  unconfirmed: t.Integer(),
  /** True when the run stopped early after repeated refusals (the rest get it next run). */
  stopped: t.Boolean(),
};

/** One run of the weekly digest. */
export const DigestRunOut = t.Object({ object: t.Literal("digest_run"), ...RunCounts });
export type DigestRunOut = Static<typeof DigestRunOut>;

/** One run of an organization's newsletter. */
export const NewsletterRunOut = t.Object({
  object: t.Literal("newsletter_run"),
  organization: t.String(),
  ...RunCounts,
});
export type NewsletterRunOut = Static<typeof NewsletterRunOut>;
