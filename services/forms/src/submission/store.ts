import type { Queryable } from "@newsroom/shared/db/index";
import { formSubmissions } from "@newsroom/shared/db/schema";
import { and, eq, lt, or } from "drizzle-orm";

/**
 * The send-once records (`form_submissions`): the only trace a form leaves (its submission id,
 * the route, whether its emails went out, and when to forget it), and one record per digest or
 * newsletter copy. Ids are global (not tenant data), so no organization id here.
 */

/** How long a submission id is remembered: a retry within a day sends nothing new. */
export const SUBMISSION_MEMORY_MS = 24 * 60 * 60 * 1000;
/** A claim older than this belongs to a process that died mid-send; another may take it. */
export const STALE_CLAIM_MS = 2 * 60 * 1000;

export type ClaimResult = "claimed" | "sending" | "sent";

/** Takes the submission id for this request unless another holds it or it was already sent. */
export async function claimSubmission(
  db: Queryable,
  submissionId: string,
  route: string,
  now: Date,
): Promise<ClaimResult> {
  const expiresAt = new Date(now.getTime() + SUBMISSION_MEMORY_MS);
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS);
  const claimed = await db
    .insert(formSubmissions)
    .values({ submissionId, route, status: "sending", expiresAt, createdAt: now })
    .onConflictDoUpdate({
      target: formSubmissions.submissionId,
      set: { route, status: "sending", expiresAt, createdAt: now },
      setWhere: or(
        lt(formSubmissions.expiresAt, now),
        and(eq(formSubmissions.status, "sending"), lt(formSubmissions.createdAt, staleBefore)),
      ),
    })
    .returning({ submissionId: formSubmissions.submissionId });
  if (claimed.length > 0) return "claimed";
  const [row] = await db
    .select({ status: formSubmissions.status })
    .from(formSubmissions)
    .where(eq(formSubmissions.submissionId, submissionId));
  return row?.status ?? "sending";
}

/**
 * Claims a record that no later request may take over (a digest or newsletter copy): inserted
 * before its email is sent and kept until `expiresAt`, whatever happens to the send. True when
 * this call took it.
 */
export async function claimRecordOnce(
  db: Queryable,
  submissionId: string,
  route: string,
  now: Date,
  expiresAt: Date,
): Promise<boolean> {
  const claimed = await db
    .insert(formSubmissions)
    .values({ submissionId, route, status: "sending", expiresAt, createdAt: now })
    .onConflictDoNothing({ target: formSubmissions.submissionId })
    .returning({ submissionId: formSubmissions.submissionId });
  return claimed.length > 0;
}

export async function markSubmissionSent(db: Queryable, submissionId: string): Promise<void> {
  await db
    .update(formSubmissions)
    .set({ status: "sent" })
    .where(eq(formSubmissions.submissionId, submissionId));
}

/** Gives a failed claim back, so a retry with the same id sends. */
export async function releaseSubmission(db: Queryable, submissionId: string): Promise<void> {
  await db
    .delete(formSubmissions)
    .where(
      and(eq(formSubmissions.submissionId, submissionId), eq(formSubmissions.status, "sending")),
    );
}

export async function deleteExpiredSubmissions(db: Queryable, now: Date): Promise<number> {
  const gone = await db
    .delete(formSubmissions)
    .where(lt(formSubmissions.expiresAt, now))
    .returning({ submissionId: formSubmissions.submissionId });
  return gone.length;
}
