import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import {
  countConfirmationsSince,
  deleteConfirmation,
  insertConfirmation,
  lockAddress,
  lockConfirmation,
  markConfirmationUsed,
  reopenConfirmation,
} from "../confirmations/store.ts";
import {
  CONFIRMATION_VALIDITY_MS,
  confirmationLink,
  hashToken,
  newConfirmationToken,
  normalizeEmail,
} from "../confirmations/tokens.ts";
import type { FormsDeps } from "../deps.ts";
import { sendEmailOnce } from "../send-once.ts";
import { digestUnsubscribe } from "../unsubscribe/link.ts";
import { joinDigest, undoJoinDigest } from "./store.ts";

const HOUR_MS = 60 * 60 * 1000;
const DIGEST_NAME = "the weekly digest";

/**
 * A digest subscribe request that passed validation and screening. Whatever the address's
 * state (new, pending, subscribed), a confirmation email goes out unless the address already got
 * one this hour or two today. The caller answers the same either way.
 */
export async function requestDigestConfirmation(
  deps: FormsDeps,
  mailer: Mailer,
  address: string,
): Promise<void> {
  const email = normalizeEmail(address);
  const now = deps.now();
  const { token, tokenHash } = newConfirmationToken();
  // The claim: the confirmation row, written under the address's throttle in a short transaction.
  const confirmationId = await deps.db.transaction(async (tx) => {
    await lockAddress(tx, `digest:${email}`);
    const lastHour = await countConfirmationsSince(
      tx,
      "digest",
      email,
      new Date(now.getTime() - HOUR_MS),
    );
    const lastDay = await countConfirmationsSince(
      tx,
      "digest",
      email,
      new Date(now.getTime() - 24 * HOUR_MS),
    );
    if (lastHour >= 1 || lastDay >= 2) return null;
    return insertConfirmation(tx, {
      list: "digest",
      organizationId: null,
      email,
      tokenHash,
      redirect: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CONFIRMATION_VALIDITY_MS),
    });
  });
  if (!confirmationId) return;
  const link = confirmationLink(deps.config.PUBLIC_BASE_URL, token);
  // A failed send withdraws the row, so it throttles no retry.
  await sendEmailOnce(
    mailer,
    {
      to: [email],
      subject: "Confirm your subscription to the weekly digest",
      text: [
        "Hello,",
        "",
        `Someone (we hope you) asked to receive ${DIGEST_NAME} at this address.`,
        "To confirm, open this link within 48 hours and press the button:",
        "",
        link,
        "",
        "If it was not you, ignore this email: nothing will be sent without your confirmation.",
      ].join("\n"),
    },
    () => deleteConfirmation(deps.db, confirmationId),
  );
}

export type ConfirmationOutcome = "confirmed" | "expired";

/**
 * Confirms a digest link: joins the list, then sends the welcome email. A used link answers
 * confirmed again and does nothing. If the welcome email fails, the join is taken back and the
 * link stays usable (the caller answers 502). `token` fits ConfirmTokenIn (the route checks).
 */
export async function confirmDigest(
  deps: FormsDeps,
  mailer: Mailer,
  token: string,
): Promise<ConfirmationOutcome> {
  const now = deps.now();
  // The claim: the link used and the address joined, in one short transaction.
  const claim = await deps.db.transaction(async (tx) => {
    const row = await lockConfirmation(tx, hashToken(token));
    if (row?.list !== "digest" || !row.email || row.expiresAt <= now) return "expired" as const;
    if (row.usedAt) return "confirmed" as const;
    const joined = await joinDigest(tx, row.email, now);
    await markConfirmationUsed(tx, row.id, now, { forgetEmail: false });
    return { confirmationId: row.id, email: row.email, joined };
  });
  if (typeof claim === "string") return claim;
  const { confirmationId, email, joined } = claim;
  if (!joined) return "confirmed";
  await sendEmailOnce(mailer, welcomeEmail(deps, email, joined.id), () =>
    deps.db.transaction(async (tx) => {
      await undoJoinDigest(tx, joined);
      await reopenConfirmation(tx, confirmationId, email);
    }),
  );
  return "confirmed";
}

/** The welcome email: like every digest email, it carries the subscription's unsubscribe link. */
function welcomeEmail(deps: FormsDeps, email: string, subscriptionId: string): MailMessage {
  const unsubscribe = digestUnsubscribe(deps.config, subscriptionId);
  return {
    to: [email],
    subject: "Welcome to the weekly digest",
    text: [
      "Hello,",
      "",
      `You are subscribed to ${DIGEST_NAME}: the week's published news, once a week.`,
      "Every digest carries a link to unsubscribe. To stop it now:",
      "",
      unsubscribe.link,
    ].join("\n"),
    headers: unsubscribe.headers,
  };
}
