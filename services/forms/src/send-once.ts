import { MailDeliveryError, type Mailer, type MailMessage } from "@newsroom/shared/mailer";

/** A claim on one email, committed before the email is sent. */
export interface EmailClaim {
  /** Gives the claim back: a later attempt sends. */
  withdraw(): Promise<void>;
  /** Records that the email went out, when the claim needs it. */
  sent?(): Promise<void>;
}

/** The provider answered with a refusal: nothing went out. */
export function isRefusal(error: unknown): boolean {
  return error instanceof MailDeliveryError && error.status !== undefined;
}

/**
 * The at-most-once rule of every email this service sends: form emails, confirmation and
 * welcome emails, digest and newsletter copies. The caller claims the email in one short
 * transaction (a submission or copy record, a confirmation row, a used link, a new subscriber)
 * and commits; only then is the provider called, outside any transaction, so a slow provider
 * holds no database connection. When the send fails the claim is given back and the error goes
 * on, so a retry sends; with `keepUnanswered`, a send the provider did not answer keeps its
 * claim (the email may have arrived: it never goes out twice). A process that dies between the
 * claim and the send leaves the claim in place: that email counts as sent.
 */
export async function sendOnce(
  claim: EmailClaim,
  send: () => Promise<unknown>,
  options: { keepUnanswered?: boolean } = {},
): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (!options.keepUnanswered || isRefusal(error)) await claim.withdraw();
    throw error;
  }
  await claim.sent?.();
}

/** One email under `sendOnce`, its claim given back by `withdraw` when the send fails. */
export function sendEmailOnce(
  mailer: Mailer,
  message: MailMessage,
  withdraw: () => Promise<void>,
): Promise<void> {
  return sendOnce({ withdraw }, () => mailer.send(message));
}
