import { type Static, Type as t } from "@sinclair/typebox";

/** An ISO 8601 week, such as `2026-W07` (Monday to Sunday, UTC). */
export const ISO_WEEK = "^\\d{4}-W(0[1-9]|[1-4]\\d|5[0-3])$";

/** `POST /internal/v1/digest/send`: the week to send; the current one when left out. */
export const DigestSendIn = t.Object({
  week: t.Optional(t.String({ pattern: ISO_WEEK, description: "ISO week, e.g. 2026-W07" })),
});
export type DigestSendIn = Static<typeof DigestSendIn>;

/** What one run did. A second run for the same week finds every subscriber already served. */
export const DigestRunOut = t.Object({
  object: t.Literal("digest_run"),
  week: t.String(),
  starts_at: t.String(),
  ends_at: t.String(),
  /** Published items of the house newsroom in the week (nothing is sent when there are none). */
  items: t.Integer(),
  /** Confirmed subscribers when the run started. */
  subscribers: t.Integer(),
  sent: t.Integer(),
  /** Subscribers this week's digest had already gone to (or was going to, in another run). */
  already_sent: t.Integer(),
  /** Refused by the provider: not recorded, so the next run for the week tries them again. */
  failed: t.Integer(),
  /** The provider did not answer: the copy may have arrived, so it is never sent again. */
  unconfirmed: t.Integer(),
  /** True when the run stopped early after repeated refusals (the rest get it next run). */
  stopped: t.Boolean(),
});
export type DigestRunOut = Static<typeof DigestRunOut>;
