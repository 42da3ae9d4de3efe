import type { Queryable } from "@newsroom/shared/db/index";
import {
  digestSubscriptions,
  formSubmissions,
  organizations,
  stories,
  storyVersions,
} from "@newsroom/shared/db/schema";
import { and, asc, count, eq, gt, gte, lt } from "drizzle-orm";

/** The house newsroom's organization (HOUSE_ORG), when it exists. */
export async function findHouseOrganization(db: Queryable, slug: string) {
  const [row] = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      running: organizations.newsroomRunning,
    })
    .from(organizations)
    .where(eq(organizations.slug, slug));
  return row;
}

export interface DigestItem {
  slug: string;
  title: string | null;
  summary: string | null;
  publishedAt: Date;
}

/** The organization's items published in [start, end), oldest first, at most `limit`. */
export async function publishedBetween(
  db: Queryable,
  organizationId: string,
  start: Date,
  end: Date,
  limit: number,
): Promise<DigestItem[]> {
  const rows = await db
    .select({
      slug: stories.slug,
      title: storyVersions.title,
      summary: storyVersions.summary,
      publishedAt: stories.publishedAt,
    })
    .from(stories)
    .leftJoin(
      storyVersions,
      and(eq(storyVersions.storyId, stories.id), eq(storyVersions.version, stories.currentVersion)),
    )
    .where(
      and(
        eq(stories.organizationId, organizationId),
        eq(stories.status, "published"),
        gte(stories.publishedAt, start),
        lt(stories.publishedAt, end),
      ),
    )
    .orderBy(asc(stories.publishedAt), asc(stories.id))
    .limit(limit);
  return rows.map((row) => ({ ...row, publishedAt: row.publishedAt! }));
}

/** The service's own digest list (not tenant data). */
export async function countConfirmedSubscribers(db: Queryable): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.status, "subscribed"));
  return row?.n ?? 0;
}

/** Confirmed subscribers after `afterId`, in id order: one page of a run. */
export async function confirmedSubscribersAfter(
  db: Queryable,
  afterId: string | null,
  limit: number,
): Promise<{ id: string; email: string }[]> {
  const confirmed = eq(digestSubscriptions.status, "subscribed");
  return db
    .select({ id: digestSubscriptions.id, email: digestSubscriptions.email })
    .from(digestSubscriptions)
    .where(afterId ? and(confirmed, gt(digestSubscriptions.id, afterId)) : confirmed)
    .orderBy(asc(digestSubscriptions.id))
    .limit(limit);
}

/**
 * One copy of one week's digest to one subscriber is recorded as an idempotency row (the
 * `form_submissions` table the forms use for the same purpose) under a UUID derived from the
 * subscriber and the week. Claiming inserts it before sending and commits at once, so a crash
 * after the claim never leads to a second copy. True when this run took the claim.
 */
export async function claimCopy(
  db: Queryable,
  copyId: string,
  week: string,
  now: Date,
  expiresAt: Date,
  route = `digest:${week}`,
): Promise<boolean> {
  const claimed = await db
    .insert(formSubmissions)
    .values({
      submissionId: copyId,
      route,
      status: "sending",
      expiresAt,
      createdAt: now,
    })
    .onConflictDoNothing({ target: formSubmissions.submissionId })
    .returning({ id: formSubmissions.submissionId });
  return claimed.length > 0;
}

export async function markCopySent(db: Queryable, copyId: string): Promise<void> {
  await db
    .update(formSubmissions)
    .set({ status: "sent" })
    .where(eq(formSubmissions.submissionId, copyId));
}

/** Gives a claim back after the provider refused the copy: the next run tries again. */
export async function releaseCopy(db: Queryable, copyId: string): Promise<void> {
  await db
    .delete(formSubmissions)
    .where(and(eq(formSubmissions.submissionId, copyId), eq(formSubmissions.status, "sending")));
}
