import { createHash } from "node:crypto";
import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { CmsWriteOut } from "@newsroom/shared/cms-connection-commands";
import type { Db } from "@newsroom/shared/db/index";
import {
  cmsConnections,
  cmsImages,
  cmsPosts,
  cmsWrites,
  outboxEvents,
} from "@newsroom/shared/db/schema";
import { EVENT, type StoryEvent } from "@newsroom/shared/events";
import { isUuid, newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { and, asc, eq, sql } from "drizzle-orm";
import { maxAttempts, nextAttemptAt } from "../delivery/retry-schedule.ts";
import { isWellFormedStoryEvent } from "../fan-out/service.ts";
import { type CmsConnectionRow, connectorOf } from "./connections.ts";
import {
  CmsConflict,
  type CmsConnector,
  CmsRefused,
  type RemoteImage,
  type RemotePost,
} from "./connector.ts";
import type { CmsHttpOptions } from "./http.ts";
import type { SourceStory, StorySource } from "./story-source.ts";

/** The durable consumer of story events for the CMS writer: every replica shares it. */
export const CMS_WRITER_CONSUMER = "webhooks-cms-writer";
/** Failed write attempts in a row after which a connection is shown as failing. */
export const CMS_FAILING_AFTER = 5;
/** How long a worker holds a claimed write before another may take it. */
const CLAIM_MS = 5 * 60_000;
const CLAIM_BATCH = 10;

/**
 * The marker of a story's post in one connection: stable (the same story and connection always
 * give it), letters and digits only (so the CMS's search takes it as one word).
 */
export function cmsMarker(connectionId: string, storyId: string): string {
  const digest = createHash("sha256").update(`${connectionId}:${storyId}`).digest("hex");
  return `newsroom${digest.slice(0, 24)}`;
}

/**
 * Records a write per enabled connection of the story's organization for each `story.published`
 * and `story.unpublished` event: one per connection and event (a redelivered event adds none).
 */
export async function recordCmsWrites(db: Db, event: StoryEvent): Promise<number> {
  const storyId = event.data.story_id;
  if (!storyId) return 0;
  const action = event.type === EVENT.storyPublished ? "publish" : "unpublish";
  const connections = await db
    .select({ id: cmsConnections.id })
    .from(cmsConnections)
    .where(
      and(
        eq(cmsConnections.organizationId, event.data.organization_id),
        eq(cmsConnections.enabled, true),
      ),
    );
  if (connections.length === 0) return 0;
  const inserted = await db
    .insert(cmsWrites)
    .values(
      connections.map((connection) => ({
        id: newId(),
        organizationId: event.data.organization_id,
        connectionId: connection.id,
        storyId,
        eventId: event.id,
        action: action as "publish" | "unpublish",
      })),
    )
    .onConflictDoNothing()
    .returning({ id: cmsWrites.id });
  return inserted.length;
}

/** How far back the reconciler looks for story events the bus may have lost. */
const RECONCILE_WINDOW_MS = 24 * 3600_000;

/**
 * Records the writes of story events the bus lost (or that arrived while no consumer ran): each
 * `story.published` / `story.unpublished` of the last day, older than `afterMs`, for each enabled
 * connection that existed when it happened and has no write for it yet. Idempotent beside the
 * consumer: one write per connection and event.
 */
export async function reconcileCmsWrites(db: Db, afterMs = 60_000): Promise<number> {
  const now = Date.now();
  const rows = rowsOf<{
    event_id: string;
    organization_id: string;
    story_id: string;
    type: string;
    connection_id: string;
  }>(
    await db.execute(sql`
      select o.id as event_id, o.organization_id, o.story_id, o.type, c.id as connection_id
      from ${outboxEvents} o
      join ${cmsConnections} c on c.organization_id = o.organization_id and c.enabled
        and c.created_at <= o.created_at
      where o.type in (${EVENT.storyPublished}, ${EVENT.storyUnpublished})
        and o.story_id is not null
        and o.created_at > ${new Date(now - RECONCILE_WINDOW_MS).toISOString()}::timestamptz
        and o.created_at < ${new Date(now - afterMs).toISOString()}::timestamptz
        and not exists (
          select 1 from ${cmsWrites} w where w.connection_id = c.id and w.event_id = o.id
        )
      order by o.created_at
      limit 500`),
  );
  if (rows.length === 0) return 0;
  const inserted = await db
    .insert(cmsWrites)
    .values(
      rows.map((row) => ({
        id: newId(),
        organizationId: row.organization_id,
        connectionId: row.connection_id,
        storyId: row.story_id,
        eventId: row.event_id,
        action: (row.type === EVENT.storyPublished ? "publish" : "unpublish") as
          | "publish"
          | "unpublish",
      })),
    )
    .onConflictDoNothing()
    .returning({ id: cmsWrites.id });
  return inserted.length;
}

/** Hears story events on the bus (JetStream or in-process) and records their CMS writes. */
export function startCmsWriterConsumer(
  db: Db,
  bus: EventBus,
  onWrites: () => void,
  durable = CMS_WRITER_CONSUMER,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (!isWellFormedStoryEvent(event)) return;
      if (event.type !== EVENT.storyPublished && event.type !== EVENT.storyUnpublished) return;
      if ((await recordCmsWrites(db, event)) > 0) onWrites();
    },
    { durable, types: [EVENT.storyPublished, EVENT.storyUnpublished] },
  );
}

export interface CmsWriterOptions {
  db: Db;
  secretsKey: Buffer;
  source: StorySource;
  http: CmsHttpOptions;
  /** WEBHOOK_RETRY_SCHEDULE: the gaps between attempts, in seconds. */
  schedule: readonly number[];
  pollIntervalMs?: number;
  /** Which connector a connection uses (tests wrap it); by kind by default. */
  connectorFor?: (row: CmsConnectionRow) => CmsConnector;
  /** A connection has just been marked failing (its owners are told once). */
  onFailing?: (row: CmsConnectionRow) => Promise<void>;
}

type WriteRow = typeof cmsWrites.$inferSelect;

/**
 * Performs the recorded writes: due ones, one at a time per connection and story (the oldest
 * unfinished write of a pair blocks the later ones), on the webhook retry schedule.
 *
 * A publish creates the post on the first write and updates it afterwards. Before a create the
 * post is looked up by its marker: a create that reached the CMS but was not recorded here (a
 * crash between the two) is found and updated instead, never made twice. The mapping is recorded
 * right after the create. Cleared images are uploaded into the media library once per connection.
 */
export class CmsWriter {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private again = false;

  constructor(private readonly options: CmsWriterOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for due writes now rather than at the next poll. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .then(() => undefined)
        .catch((error: unknown) =>
          log.warn("the CMS writer's pass failed", {
            error: error instanceof Error ? error.message : String(error),
          }),
        )
        .finally(() => {
          this.running = null;
          const soon = this.again;
          this.again = false;
          this.schedule(soon ? 0 : (this.options.pollIntervalMs ?? 1_000));
        });
    }, ms);
  }

  /** Claims the due writes and performs them; answers how many were attempted. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((write) => this.perform(write)));
    if (claimed.length === CLAIM_BATCH) this.again = true;
    return claimed.length;
  }

  private async claim(): Promise<WriteRow[]> {
    const { db } = this.options;
    const until = new Date(Date.now() + CLAIM_MS);
    const rows = await db.execute<{ id: string }>(sql`
      update ${cmsWrites} set locked_until = ${until.toISOString()}::timestamptz, attempts = attempts + 1
      where id in (
        select w.id from ${cmsWrites} w
        where w.done_at is null and w.failed_at is null and w.next_attempt_at <= now()
          and (w.locked_until is null or w.locked_until < now())
          and not exists (
            select 1 from ${cmsWrites} e
            where e.connection_id = w.connection_id and e.story_id = w.story_id
              and e.done_at is null and e.failed_at is null
              and (e.created_at, e.id) < (w.created_at, w.id)
          )
        order by w.next_attempt_at, w.created_at
        limit ${CLAIM_BATCH}
        for update skip locked
      )
      returning id`);
    const ids = rowsOf<{ id: string }>(rows).map((row) => row.id);
    if (ids.length === 0) return [];
    const claimed: WriteRow[] = [];
    for (const id of ids) {
      const [row] = await db.select().from(cmsWrites).where(eq(cmsWrites.id, id));
      if (row) claimed.push(row);
    }
    return claimed;
  }

  private async perform(write: WriteRow): Promise<void> {
    const { db } = this.options;
    const [connection] = await db
      .select()
      .from(cmsConnections)
      .where(eq(cmsConnections.id, write.connectionId));
    if (!connection) return;
    if (!connection.enabled) {
      await this.finish(write, "none", "The connection was disabled before the write.");
      return;
    }
    const connector =
      this.options.connectorFor?.(connection) ??
      connectorOf(connection, this.options.secretsKey, this.options.http);
    try {
      const performed =
        write.action === "publish"
          ? await this.publish(write, connection, connector)
          : await this.unpublish(write, connection, connector);
      await this.finish(write, performed, null);
      await db
        .update(cmsConnections)
        .set({
          status: "working",
          consecutiveFailures: 0,
          lastError: null,
          lastErrorAt: null,
          failingAnnouncementId: null,
          updatedAt: new Date(),
        })
        .where(eq(cmsConnections.id, connection.id));
    } catch (error) {
      await this.failed(write, connection, error);
    }
  }

  private async publish(
    write: WriteRow,
    connection: CmsConnectionRow,
    connector: CmsConnector,
  ): Promise<"create" | "update" | "none"> {
    const story = await this.options.source.story(write.organizationId, write.storyId);
    // Unpublished (or gone) since the event: the later event's write takes care of it.
    if (story?.status !== "published") return "none";
    const marker = cmsMarker(connection.id, story.id);
    const images = await this.images(write, connection, connector, story);
    const post = {
      marker,
      title: story.title,
      slug: story.slug,
      summary: story.summary,
      body: story.body,
      canonicalUrl: story.canonicalUrl,
      publishedAt: (story.publishedAt ?? new Date()).toISOString(),
      topics: story.topics,
      images,
    };
    let remote = await this.mapping(write, connection.id);
    if (!remote) {
      const found = await connector.findByMarker(marker);
      if (!found) {
        const created = await connector.create(post);
        await this.recordPost(write, connection.id, marker, created, story.version, "published");
        return "create";
      }
      remote = found;
    }
    const updated = await connector.update(remote, post);
    await this.recordPost(write, connection.id, marker, updated, story.version, "published");
    return "update";
  }

  private async unpublish(
    write: WriteRow,
    connection: CmsConnectionRow,
    connector: CmsConnector,
  ): Promise<"unpublish" | "none"> {
    const story = await this.options.source.story(write.organizationId, write.storyId);
    // Published again since the event: the later event's write takes care of it.
    if (story?.status === "published") return "none";
    const marker = cmsMarker(connection.id, write.storyId);
    const remote =
      (await this.mapping(write, connection.id)) ?? (await connector.findByMarker(marker));
    if (!remote) return "none";
    await connector.unpublish(remote, connection.unpublishMode);
    await this.recordPost(write, connection.id, marker, remote, null, "unpublished");
    return "unpublish";
  }

  /** The story's cleared images in this connection's media library, uploading those not yet. */
  private async images(
    write: WriteRow,
    connection: CmsConnectionRow,
    connector: CmsConnector,
    story: SourceStory,
  ): Promise<Map<string, RemoteImage>> {
    const { db, source } = this.options;
    const images = new Map<string, RemoteImage>();
    const assetIds = new Set<string>();
    for (const block of story.body) {
      if (block.type === "image" && "asset_id" in block) assetIds.add(block.asset_id);
    }
    for (const assetId of assetIds) {
      const [known] = await db
        .select()
        .from(cmsImages)
        .where(and(eq(cmsImages.connectionId, connection.id), eq(cmsImages.assetId, assetId)));
      if (known) {
        images.set(assetId, { id: known.remoteId, url: known.remoteUrl });
        continue;
      }
      const image = await source.image(write.organizationId, assetId);
      if (!image) continue;
      const uploaded = await connector.uploadImage(image);
      await db
        .insert(cmsImages)
        .values({
          connectionId: connection.id,
          assetId,
          organizationId: write.organizationId,
          remoteId: uploaded.id,
          remoteUrl: uploaded.url,
        })
        .onConflictDoNothing();
      images.set(assetId, uploaded);
    }
    return images;
  }

  private async mapping(write: WriteRow, connectionId: string): Promise<RemotePost | null> {
    const [row] = await this.options.db
      .select()
      .from(cmsPosts)
      .where(and(eq(cmsPosts.connectionId, connectionId), eq(cmsPosts.storyId, write.storyId)));
    return row ? { id: row.remoteId, updatedAt: row.remoteUpdatedAt, url: row.remoteUrl } : null;
  }

  private async recordPost(
    write: WriteRow,
    connectionId: string,
    marker: string,
    remote: RemotePost,
    version: number | null,
    state: "published" | "unpublished",
  ): Promise<void> {
    const values = {
      remoteId: remote.id,
      remoteUpdatedAt: remote.updatedAt,
      remoteUrl: remote.url,
      writtenVersion: version,
      state,
      updatedAt: new Date(),
    };
    await this.options.db
      .insert(cmsPosts)
      .values({
        connectionId,
        storyId: write.storyId,
        organizationId: write.organizationId,
        marker,
        ...values,
      })
      .onConflictDoUpdate({ target: [cmsPosts.connectionId, cmsPosts.storyId], set: values });
  }

  private async finish(
    write: WriteRow,
    performed: "create" | "update" | "unpublish" | "none",
    note: string | null,
  ): Promise<void> {
    await this.options.db
      .update(cmsWrites)
      .set({ performed, doneAt: new Date(), lockedUntil: null, lastError: note })
      .where(eq(cmsWrites.id, write.id));
  }

  private async failed(write: WriteRow, connection: CmsConnectionRow, error: unknown) {
    const { db, schedule } = this.options;
    // A post changed in the CMS since it was written is not overwritten: a person decides.
    const conflict = error instanceof CmsConflict;
    const message = conflict
      ? "The post was changed in the CMS since it was last written, so it was not overwritten."
      : error instanceof Error
        ? error.message
        : String(error);
    const refused = error instanceof CmsRefused || conflict;
    const last = refused || write.attempts >= maxAttempts(schedule);
    await db
      .update(cmsWrites)
      .set({
        lastError: message,
        lockedUntil: null,
        ...(last
          ? { failedAt: new Date() }
          : { nextAttemptAt: nextAttemptAt(schedule, write.attempts) }),
      })
      .where(eq(cmsWrites.id, write.id));
    const [updated] = await db
      .update(cmsConnections)
      .set({
        consecutiveFailures: sql`${cmsConnections.consecutiveFailures} + 1`,
        lastError: message,
        lastErrorAt: new Date(),
        updatedAt: new Date(),
      })
      .where(eq(cmsConnections.id, connection.id))
      .returning();
    if (!updated || updated.consecutiveFailures < CMS_FAILING_AFTER) return;
    // Marked failing once per run of failures: only the update that changes the status tells.
    const [marked] = await db
      .update(cmsConnections)
      .set({ status: "failing", failingAnnouncementId: newId() })
      .where(and(eq(cmsConnections.id, connection.id), sql`${cmsConnections.status} <> 'failing'`))
      .returning();
    if (marked) {
      await this.options.onFailing?.(marked).catch((failure: unknown) =>
        log.warn("telling of a failing CMS connection failed", {
          connection_id: connection.id,
          error: failure instanceof Error ? failure.message : String(failure),
        }),
      );
    }
  }
}

/** A story's writes into every connection, newest first, with where each stands. */
export async function listStoryCmsWrites(
  db: Db,
  organizationId: string,
  storyId: string,
): Promise<CmsWriteOut[]> {
  if (!isUuid(storyId)) return [];
  const rows = await db
    .select({ write: cmsWrites, connection: cmsConnections, post: cmsPosts })
    .from(cmsWrites)
    .innerJoin(cmsConnections, eq(cmsConnections.id, cmsWrites.connectionId))
    .leftJoin(
      cmsPosts,
      and(
        eq(cmsPosts.connectionId, cmsWrites.connectionId),
        eq(cmsPosts.storyId, cmsWrites.storyId),
      ),
    )
    .where(and(eq(cmsWrites.organizationId, organizationId), eq(cmsWrites.storyId, storyId)))
    .orderBy(asc(cmsWrites.createdAt), asc(cmsWrites.id));
  return rows.reverse().map(({ write, connection, post }) => ({
    object: "cms_write",
    id: write.id,
    connection_id: connection.id,
    kind: connection.kind,
    url: connection.url,
    story_id: write.storyId,
    action: write.action,
    status: write.doneAt ? "done" : write.failedAt ? "failed" : "pending",
    performed: write.performed,
    attempts: write.attempts,
    last_error: write.lastError,
    next_attempt_at: write.doneAt || write.failedAt ? null : write.nextAttemptAt.toISOString(),
    remote_url: post?.remoteUrl ?? null,
    created_at: write.createdAt.toISOString(),
    done_at: write.doneAt?.toISOString() ?? null,
  }));
}

function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}
