import type { Mailer, MailMessage } from "@newsroom/shared/mailer";

/**
 * The at-most-once rule of confirmation and welcome emails. The caller claims the email in one
 * short transaction (a confirmation row, a used link, a new subscriber) and commits; only then is
 * the provider called, outside any transaction, so a slow provider holds no database connection.
 * When the send fails (refused or unanswered), `withdraw` gives the claim back in another short
 * transaction and the error goes on (502: a retry sends). A process that dies between the claim
 * and the send leaves the claim in place: that email counts as sent and never goes out twice.
 */
export async function sendClaimed(
  mailer: Mailer,
  message: MailMessage,
  withdraw: () => Promise<void>,
): Promise<void> {
  try {
    await mailer.send(message);
  } catch (error) {
    await withdraw();
    throw error;
  }
}
