import type { Tx } from "@newsroom/shared/db/index";
import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import type { FormsDeps } from "../deps.ts";
import { sendEmailOnce } from "../send-once.ts";
import {
  countConfirmationsSince,
  deleteConfirmation,
  insertConfirmation,
  lockAddress,
  lockConfirmation,
  markConfirmationUsed,
  reopenConfirmation,
} from "./store.ts";
import {
  CONFIRMATION_VALIDITY_MS,
  confirmationLink,
  hashToken,
  newConfirmationToken,
  normalizeEmail,
} from "./tokens.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * A list of this service's own that an address joins by double opt-in: the weekly digest, the
 * status page's updates. One confirmation flow serves each: the throttled confirmation email,
 * then a confirmation that joins the list and sends the welcome email, at most once.
 */
export interface OptInList<Join> {
  /** Its `newsletter_confirmations.list`. */
  list: "digest" | "status";
  /** The confirmation page its links open (GET shows one button that POSTs the token). */
  confirmPath: string;
  /** The confirmation email's subject, and what the reader is asked to confirm. */
  confirmation: { subject: string; what: string };
  /** Adds the address; the join when the address was not on the list before, else null. */
  join(tx: Tx, email: string, now: Date): Promise<Join | null>;
  /** Takes a join back (its welcome email failed). */
  undoJoin(tx: Tx, join: Join): Promise<void>;
  /** The welcome email, with the list's unsubscribe link. */
  welcome(email: string, join: Join): MailMessage;
}

/**
 * A subscribe request that passed validation and screening. Whatever the address's state (new,
 * pending, subscribed), a confirmation email goes out unless the address already got one of this
 * list this hour or two today. The caller answers the same either way.
 */
export async function requestConfirmation<J>(
  deps: FormsDeps,
  mailer: Mailer,
  list: OptInList<J>,
  address: string,
): Promise<void> {
  const email = normalizeEmail(address);
  const now = deps.now();
  const { token, tokenHash } = newConfirmationToken();
  // The claim: the confirmation row, written under the address's throttle in a short transaction.
  const confirmationId = await deps.db.transaction(async (tx) => {
    await lockAddress(tx, `${list.list}:${email}`);
    const since = (ms: number) =>
      countConfirmationsSince(tx, list.list, email, new Date(now.getTime() - ms));
    if ((await since(HOUR_MS)) >= 1 || (await since(24 * HOUR_MS)) >= 2) return null;
    return insertConfirmation(tx, {
      list: list.list,
      organizationId: null,
      email,
      tokenHash,
      redirect: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CONFIRMATION_VALIDITY_MS),
    });
  });
  if (!confirmationId) return;
  const link = confirmationLink(deps.config.PUBLIC_BASE_URL, token, list.confirmPath);
  // A failed send withdraws the row, so it throttles no retry.
  await sendEmailOnce(
    mailer,
    {
      to: [email],
      subject: list.confirmation.subject,
      text: [
        "Hello,",
        "",
        `Someone (we hope you) asked to receive ${list.confirmation.what} at this address.`,
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
 * Confirms a link of the list: joins it, then sends the welcome email. A used link answers
 * confirmed again and does nothing; another list's link is expired. If the welcome email fails,
 * the join is taken back and the link stays usable (the caller answers 502). `token` fits
 * ConfirmTokenIn (the route checks).
 */
export async function confirmSubscription<J>(
  deps: FormsDeps,
  mailer: Mailer,
  list: OptInList<J>,
  token: string,
): Promise<ConfirmationOutcome> {
  const now = deps.now();
  // The claim: the link used and the address joined, in one short transaction.
  const claim = await deps.db.transaction(async (tx) => {
    const row = await lockConfirmation(tx, hashToken(token));
    if (row?.list !== list.list || !row.email || row.expiresAt <= now) return "expired" as const;
    if (row.usedAt) return "confirmed" as const;
    const joined = await list.join(tx, row.email, now);
    await markConfirmationUsed(tx, row.id, now, { forgetEmail: false });
    return { confirmationId: row.id, email: row.email, joined };
  });
  if (typeof claim === "string") return claim;
  const { confirmationId, email, joined } = claim;
  if (joined === null) return "confirmed";
  await sendEmailOnce(mailer, list.welcome(email, joined), () =>
    deps.db.transaction(async (tx) => {
      await list.undoJoin(tx, joined);
      await reopenConfirmation(tx, confirmationId, email);
    }),
  );
  return "confirmed";
}
