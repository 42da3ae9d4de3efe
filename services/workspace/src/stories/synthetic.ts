import type { Db } from "@newsroom/shared/db/index";
import {
  approvalDecisions,
  type StoryStatus,
  stories,
  storyTopics,
  storyVersions,
  topics,
} from "@newsroom/shared/db/schema";
import type { SyntheticStory } from "@newsroom/shared/demo/synthetic-stories";
import { newId } from "@newsroom/shared/ids";
import { and, eq, inArray } from "drizzle-orm";
import { approvalDecisionRow, ensureTopics } from "./service.ts";
import { STATUSES_AFTER_APPROVAL } from "./state-machine.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A real member who decided on made-up stories (the demo's approver). */
export interface StoryDecider {
  personId: string;
  role: string;
}

/**
 * Writes made-up stories straight into an organization. Without a `decider` (the sandbox) they
 * are marked `synthetic`: no person decided on them, so none carries an approval decision or an
 * approved version, the API shows no approvals for them, and publishing one again after a change
 * needs a real approval. With a `decider` (the demo, whose approver is a real member) they obey
 * the invariants of real stories: each one past review has that person's approval of its current
 * version, and each rejected one that person's rejection with a note.
 */
export async function insertStories(
  db: Db,
  organizationId: string,
  list: SyntheticStory[],
  statusOf: (index: number) => StoryStatus,
  decider?: StoryDecider,
): Promise<string[]> {
  if (list.length === 0) return [];
  const now = Date.now();
  const rows = list.map((story, index) => ({
    story,
    id: newId(),
    status: statusOf(index),
    at: new Date(now - story.ageDays * DAY_MS),
  }));
  // A few statements for the whole list, not a few per story: the first `npm start` waits for
  // them (the demo in about 1 s instead of 3 on PGlite, 2 busy cores).
  await db.transaction(async (tx) => {
    await tx.insert(stories).values(
      rows.map(({ story, id, status, at }) => ({
        id,
        organizationId,
        type: story.type,
        slug: story.slug,
        status,
        currentVersion: 1,
        approvedVersion: decider && STATUSES_AFTER_APPROVAL.includes(status) ? 1 : null,
        externalUrl: story.externalUrl,
        featured: story.featured,
        synthetic: decider === undefined,
        publishedAt: status === "published" || status === "unpublished" ? at : null,
        // A demo story scheduled by a person publishes a week after the demo was made (the
        // scheduler takes it then); the sandbox's made-up ones have no time.
        publishAt: decider && status === "scheduled" ? new Date(now + 7 * DAY_MS) : null,
        createdAt: new Date(at.getTime() - DAY_MS),
        updatedAt: at,
      })),
    );
    await tx.insert(storyVersions).values(
      rows.map(({ story, id, at }) => ({
        id: newId(),
        storyId: id,
        version: 1,
        title: story.title,
        summary: story.summary,
        body: story.body,
        createdAt: new Date(at.getTime() - DAY_MS),
      })),
    );
    const decisions = decider
      ? rows.flatMap((row) => decisionRows(organizationId, row, decider))
      : [];
    if (decisions.length > 0) await tx.insert(approvalDecisions).values(decisions);
    const slugs = [...new Set(list.flatMap((story) => story.topics))];
    if (slugs.length === 0) return;
    await ensureTopics(tx, organizationId, slugs);
    const topicRows = await tx
      .select({ id: topics.id, slug: topics.slug })
      .from(topics)
      .where(and(eq(topics.organizationId, organizationId), inArray(topics.slug, slugs)));
    const topicIds = new Map(topicRows.map((row) => [row.slug, row.id]));
    const links = rows.flatMap(({ story, id }) =>
      [...new Set(story.topics)].map((slug) => ({ storyId: id, topicId: topicIds.get(slug)! })),
    );
    if (links.length > 0) await tx.insert(storyTopics).values(links);
  });
  return rows.map((row) => row.id);
}

/** The decision that brought a made-up story to its status, an hour before its last change. */
function decisionRows(
  organizationId: string,
  row: { id: string; status: StoryStatus; at: Date },
  decider: StoryDecider,
): (typeof approvalDecisions.$inferInsert)[] {
  const decision = STATUSES_AFTER_APPROVAL.includes(row.status)
    ? ("approved" as const)
    : row.status === "rejected"
      ? ("rejected" as const)
      : null;
  if (!decision) return [];
  return [
    approvalDecisionRow({
      organizationId,
      storyId: row.id,
      version: 1,
      decision,
      actorRole: decider.role,
      personId: decider.personId,
      note:
        decision === "rejected" ? "Needs a source for the figures in the second paragraph." : null,
      decidedAt: new Date(row.at.getTime() - HOUR_MS),
    }),
  ];
}
