import { and, eq, inArray } from "drizzle-orm";
import { type KeyEnvironment, type KeyScope, makeKey } from "../api-keys.ts";
import type { Db, Queryable } from "../db/index.ts";
import {
  apiKeys,
  approvalDecisions,
  hostnames,
  organizations,
  outboxEvents,
  previewLinks,
  type StoryStatus,
  type StoryType,
  sites,
  stories,
  storyTopics,
  storyVersions,
  topics,
  webhookEndpoints,
} from "../db/schema.ts";
import type { SyntheticStory } from "../demo/synthetic-stories.ts";
import type { StoryEvent, WebhookEventType } from "../events.ts";
import { newId } from "../ids.ts";
import { hashPreviewToken, makePreviewToken } from "../preview-links.ts";
import { newWebhookSecret, seal } from "../secret-box.ts";
import type { StoryBody } from "../story-body.ts";

/**
 * Rows a reading service's tests need, inserted the way the workspace (which owns these tables)
 * stores them: the same columns and defaults, a story's versions, decisions and outbox events
 * written together. They check nothing the workspace would refuse: a test asks only for what
 * the workspace could have written. The database's triggers move `data_version` as for any
 * writer.
 */

export type OrganizationRow = typeof organizations.$inferSelect;
export type StoryRow = typeof stories.$inferSelect;

export async function insertOrganization(
  db: Queryable,
  input: Partial<Omit<typeof organizations.$inferInsert, "id">> & { slug: string },
): Promise<OrganizationRow> {
  const [row] = await db
    .insert(organizations)
    .values({ name: input.slug, ...input, id: newId() })
    .returning();
  return row!;
}

/** Changes an organization's settings (newsletter, running, name), as the workspace's edit does. */
export async function updateOrganizationRow(
  db: Queryable,
  organizationId: string,
  changes: Partial<
    Pick<OrganizationRow, "name" | "newsroomRunning" | "sandbox" | "newsletterEnabled">
  > & { newsletterOrigins?: string[] },
): Promise<OrganizationRow> {
  const [row] = await db
    .update(organizations)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(organizations.id, organizationId))
    .returning();
  if (!row) throw new Error(`no organization ${organizationId}`);
  return row;
}

export async function insertSite(
  db: Queryable,
  organizationId: string,
  input: { slug: string; name: string; publisher: string; accent?: string; live?: boolean },
): Promise<typeof sites.$inferSelect> {
  const [row] = await db
    .insert(sites)
    .values({
      id: newId(),
      organizationId,
      slug: input.slug,
      name: input.name,
      publisher: input.publisher,
      accent: input.accent ?? "#1a73e8",
      enabled: true,
      live: input.live ?? false,
    })
    .returning();
  return row!;
}

/** A preview link of a story, as the workspace makes one (a week ahead unless told); its token. */
export async function insertPreviewLink(
  db: Queryable,
  story: { id: string; organizationId: string },
  options: { expiresAt?: Date; revokedAt?: Date } = {},
): Promise<{ id: string; token: string }> {
  const token = makePreviewToken();
  const id = newId();
  await db.insert(previewLinks).values({
    id,
    organizationId: story.organizationId,
    storyId: story.id,
    label: "A journalist",
    tokenHash: hashPreviewToken(token),
    expiresAt: options.expiresAt ?? new Date(Date.now() + 7 * 86_400_000),
    revokedAt: options.revokedAt ?? null,
    createdBy: "admin",
  });
  return { id, token };
}

/** A hostname of a site, lower-cased as stored; active (verified) unless told otherwise. */
export async function insertHostname(
  db: Queryable,
  site: { id: string; organizationId: string },
  hostname: string,
  options: { active?: boolean } = {},
): Promise<typeof hostnames.$inferSelect> {
  const active = options.active ?? true;
  const [row] = await db
    .insert(hostnames)
    .values({
      id: newId(),
      organizationId: site.organizationId,
      siteId: site.id,
      hostname: hostname.toLowerCase(),
      status: active ? "active" : "pending",
      activatedAt: active ? new Date() : null,
    })
    .returning();
  return row!;
}

/** Marks a hostname active, as the workspace does once its certificate is confirmed. */
export async function activateHostnameRow(
  db: Queryable,
  hostname: string,
): Promise<typeof hostnames.$inferSelect> {
  const [row] = await db
    .update(hostnames)
    .set({ status: "active", activatedAt: new Date() })
    .where(eq(hostnames.hostname, hostname.toLowerCase()))
    .returning();
  if (!row) throw new Error(`no hostname ${hostname}`);
  return row;
}

/** An API key made as the workspace makes one (only its hash stored); the secret is returned. */
export async function insertApiKey(
  db: Queryable,
  organizationId: string,
  input: {
    scopes: readonly KeyScope[];
    environment?: KeyEnvironment;
    expiresAt?: Date;
    revokedAt?: Date | null;
  },
): Promise<{ id: string; secret: string }> {
  const environment = input.environment ?? "test";
  const key = makeKey(environment);
  const id = newId();
  await db.insert(apiKeys).values({
    id,
    organizationId,
    environment,
    keyHash: key.hash,
    prefix: key.prefix,
    lastFour: key.lastFour,
    scopes: [...input.scopes],
    expiresAt: input.expiresAt ?? new Date(Date.now() + 30 * 86_400_000),
    revokedAt: input.revokedAt ?? null,
  });
  return { id, secret: key.secret };
}

/** A webhook endpoint with a fresh signing secret sealed under `secretsKey`. */
export async function insertWebhookEndpoint(
  db: Queryable,
  organizationId: string,
  input: {
    url: string;
    events: WebhookEventType[];
    secretsKey: Buffer;
    status?: "enabled" | "disabled";
  },
): Promise<{ row: typeof webhookEndpoints.$inferSelect; secret: string }> {
  const secret = newWebhookSecret();
  const disabled = input.status === "disabled";
  const [row] = await db
    .insert(webhookEndpoints)
    .values({
      id: newId(),
      organizationId,
      url: input.url,
      events: input.events,
      status: input.status ?? "enabled",
      disabledReason: disabled ? "by_client" : null,
      secretCiphertext: seal(secret, input.secretsKey),
      secretHint: secret.slice(-4),
    })
    .returning();
  return { row: row!, secret };
}

export interface StoryInput {
  type: StoryType;
  slug: string;
  title: string;
  summary?: string | null;
  body?: StoryBody;
  topics?: string[];
  externalUrl?: string | null;
  featured?: boolean;
  status?: "draft" | "ai_generated";
}

/** A story with its version 1 (in `draft` unless told) and its topics, created when missing. */
export async function insertStory(
  db: Db,
  organizationId: string,
  input: StoryInput,
): Promise<StoryRow> {
  return db.transaction(async (tx) => {
    const [story] = await tx
      .insert(stories)
      .values({
        id: newId(),
        organizationId,
        type: input.type,
        slug: input.slug,
        status: input.status ?? "draft",
        currentVersion: 1,
        externalUrl: input.externalUrl ?? null,
        featured: input.featured ?? false,
      })
      .returning();
    await tx.insert(storyVersions).values({
      id: newId(),
      storyId: story!.id,
      version: 1,
      title: input.title,
      summary: input.summary ?? null,
      body: input.type === "in_the_news" ? [] : (input.body ?? []),
    });
    const rows = await ensureTopics(tx, organizationId, input.topics ?? []);
    if (rows.length > 0) {
      await tx.insert(storyTopics).values(rows.map((t) => ({ storyId: story!.id, topicId: t.id })));
    }
    return story!;
  });
}

const DAY_MS = 86_400_000;

/**
 * Many stories at once, as the workspace's demo data writes them (marked `synthetic`, no
 * approval decision, no outbox event): story i in `statusOf(i)`, dated `ageDays` back, so that
 * the first of the list is the newest. Returns the stories' ids in the list's order.
 */
export async function insertStories(
  db: Db,
  organizationId: string,
  list: readonly SyntheticStory[],
  statusOf: (index: number) => StoryStatus,
): Promise<string[]> {
  if (list.length === 0) return [];
  const now = Date.now();
  const rows = list.map((story, index) => ({
    story,
    id: newId(),
    status: statusOf(index),
    at: new Date(now - story.ageDays * DAY_MS),
  }));
  await db.transaction(async (tx) => {
    await tx.insert(stories).values(
      rows.map(({ story, id, status, at }) => ({
        id,
        organizationId,
        type: story.type,
        slug: story.slug,
        status,
        currentVersion: 1,
        externalUrl: story.externalUrl,
        featured: story.featured,
        synthetic: true,
        publishedAt: status === "published" || status === "unpublished" ? at : null,
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
    const topicIds = new Map(
      (await ensureTopics(tx, organizationId, [...new Set(list.flatMap((s) => s.topics))])).map(
        (row) => [row.slug, row.id],
      ),
    );
    const links = rows.flatMap(({ story, id }) =>
      [...new Set(story.topics)].map((slug) => ({ storyId: id, topicId: topicIds.get(slug)! })),
    );
    if (links.length > 0) await tx.insert(storyTopics).values(links);
  });
  return rows.map((row) => row.id);
}

/** The organization's topics of these slugs, created when missing. */
async function ensureTopics(
  tx: Queryable,
  organizationId: string,
  slugs: readonly string[],
): Promise<{ id: string; slug: string }[]> {
  if (slugs.length === 0) return [];
  await tx
    .insert(topics)
    .values(slugs.map((slug) => ({ id: newId(), organizationId, slug, name: topicName(slug) })))
    .onConflictDoNothing();
  return tx
    .select({ id: topics.id, slug: topics.slug })
    .from(topics)
    .where(and(eq(topics.organizationId, organizationId), inArray(topics.slug, [...slugs])));
}

function topicName(slug: string): string {
  return slug
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

/** A new current version; an approved, scheduled or unpublished story goes back to draft. */
export async function insertStoryVersion(
  db: Db,
  storyId: string,
  input: { title: string; summary?: string | null; body?: StoryBody },
): Promise<StoryRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(stories).where(eq(stories.id, storyId)).for("update");
    if (!row) throw new Error(`no story ${storyId}`);
    const version = (row.currentVersion ?? 0) + 1;
    await tx.insert(storyVersions).values({
      id: newId(),
      storyId,
      version,
      title: input.title,
      summary: input.summary ?? null,
      body: row.type === "in_the_news" ? [] : (input.body ?? []),
    });
    const status: StoryStatus =
      row.status === "ai_generated" || row.status === "rejected" ? row.status : "draft";
    const [written] = await tx
      .update(stories)
      .set({ currentVersion: version, status, updatedAt: new Date() })
      .where(eq(stories.id, storyId))
      .returning();
    return written!;
  });
}

/**
 * What each editorial action leaves: the status, the event written and the decision recorded.
 * test/builders/story-actions.test.ts holds this copy to the workspace's state machine.
 */
const ACTIONS = {
  submit: { to: "review_required", event: "story.submitted" },
  approve: { to: "approved", event: "story.approved", decision: "approved" },
  reject: { to: "rejected", event: "story.rejected", decision: "rejected" },
  schedule: { to: "scheduled", event: null },
  publish: { to: "published", event: "story.published" },
  unpublish: { to: "unpublished", event: "story.unpublished" },
  archive: { to: "archived", event: null },
} as const satisfies Record<
  string,
  { to: StoryStatus; event: WebhookEventType | null; decision?: "approved" | "rejected" }
>;
export type StoryAction = keyof typeof ACTIONS;

/**
 * Takes a story through an editorial action as the workspace records it: the story's status
 * and event counter, an approval decision for approve and reject, and the event in the outbox,
 * all in one transaction. Returns the story, the outbox event's id and the event as the outbox
 * relay publishes it on the bus (both null when the action writes none).
 */
export async function applyStoryAction(
  db: Db,
  storyId: string,
  action: StoryAction,
  options: { note?: string; actorRole?: string } = {},
): Promise<{ story: StoryRow; eventId: string | null; event: StoryEvent | null }> {
  const rule: { to: StoryStatus; event: WebhookEventType | null; decision?: string } =
    ACTIONS[action];
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(stories).where(eq(stories.id, storyId)).for("update");
    if (!row) throw new Error(`no story ${storyId}`);
    const now = new Date();
    const sequence = rule.event ? row.eventSequence + 1 : row.eventSequence;
    const approved = rule.decision === "approved";
    const [story] = await tx
      .update(stories)
      .set({
        status: rule.to,
        eventSequence: sequence,
        approvedVersion: approved ? row.currentVersion : row.approvedVersion,
        publishedAt: rule.to === "published" ? now : row.publishedAt,
        scheduledAt: rule.to === "scheduled" ? now : row.scheduledAt,
        updatedAt: now,
      })
      .where(eq(stories.id, storyId))
      .returning();
    if (rule.decision === "approved" || rule.decision === "rejected") {
      await tx.insert(approvalDecisions).values({
        id: newId(),
        organizationId: row.organizationId,
        storyId,
        version: row.currentVersion,
        decision: rule.decision,
        actorType: "person",
        actorRole: options.actorRole ?? "owner",
        note: options.note ?? null,
        decidedAt: now,
      });
    }
    if (!rule.event) return { story: story!, eventId: null, event: null };
    const eventId = newId();
    await tx.insert(outboxEvents).values({
      id: eventId,
      organizationId: row.organizationId,
      type: rule.event,
      storyId,
      sequence,
      previousStatus: row.status,
      createdAt: now,
    });
    const event: StoryEvent = {
      id: eventId,
      type: rule.event,
      created_at: now.toISOString(),
      data: { organization_id: row.organizationId, story_id: storyId },
    };
    return { story: story!, eventId, event };
  });
}

/** A draft story taken to `published` (submitted, approved, published), with its events. */
export async function insertPublishedStory(
  db: Db,
  organizationId: string,
  input: StoryInput,
): Promise<StoryRow> {
  const { id } = await insertStory(db, organizationId, input);
  await applyStoryAction(db, id, "submit");
  await applyStoryAction(db, id, "approve");
  return (await applyStoryAction(db, id, "publish")).story;
}
