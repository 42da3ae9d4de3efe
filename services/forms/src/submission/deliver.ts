import type { Db } from "@newsroom/shared/db/index";
import { ApiError } from "@newsroom/shared/errors";
import { log } from "@newsroom/shared/log";
import { MailDeliveryError } from "@newsroom/shared/mailer";
import { sendOnce } from "../send-once.ts";
import { claimSubmission, markSubmissionSent, releaseSubmission } from "./store.ts";

const WAIT_FOR_OTHER_MS = 15_000;
const POLL_MS = 50;

/**
 * Runs `send` at most once per submission id (`sendOnce` on a submission record). A repeat of a sent submission does nothing; a
 * repeat that arrives while the first is still sending waits for its outcome. When the provider
 * refuses, the claim is given back and the answer is 502 delivery_failed, so a retry with the
 * same submission id sends exactly once.
 */
export async function deliverOnce(
  db: Db,
  submissionId: string,
  route: string,
  now: () => Date,
  send: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + WAIT_FOR_OTHER_MS;
  for (;;) {
    const claim = await claimSubmission(db, submissionId, route, now());
    if (claim === "sent") return;
    if (claim === "claimed") break;
    if (Date.now() > deadline) {
      throw new ApiError(
        "delivery_failed",
        "This submission is still being sent. Retry with the same submission_id.",
      );
    }
    await Bun.sleep(POLL_MS);
  }
  const claim = {
    withdraw: () => releaseSubmission(db, submissionId),
    sent: () => markSubmissionSent(db, submissionId),
  };
  try {
    await sendOnce(claim, send);
  } catch (error) {
    if (error instanceof MailDeliveryError) {
      log.warn("email provider refused a form email", { route, status: error.status });
      throw new ApiError("delivery_failed");
    }
    throw error;
  }
}
