import { afterAll, beforeAll } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { EventBus } from "@newsroom/shared/bus/index";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { adminToken, type Config, loadConfig, secretsKey } from "@newsroom/shared/config";
import {
  outboxEvents,
  webhookDeliveries,
  webhookEndpoints,
  webhookFannedOutEvents,
} from "@newsroom/shared/db/schema";
import type { SubscribableEventType, WebhookEventType } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import {
  applyStoryAction,
  insertOrganization,
  insertStory,
  type StoryAction,
} from "@newsroom/shared/testing/builders";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import type { EndpointCreateIn } from "@newsroom/shared/webhook-endpoint-commands";
import { and, eq } from "drizzle-orm";
import { createWebhooksService } from "../../src/app.ts";
import { createWebhookEndpoint } from "../../src/endpoints/service.ts";
import { storyEventOf } from "../../src/fan-out/service.ts";

export const ALL_EVENTS: WebhookEventType[] = [
  "story.submitted",
  "story.approved",
  "story.rejected",
  "story.published",
  "story.unpublished",
];

/** A short schedule for tests: 8 attempts, 50 ms apart. */
export const SHORT_SCHEDULE = "0.05,0.05,0.05,0.05,0.05,0.05,0.05";

/** An editorial action on a story, as the workspace applies it. */
export interface TransitionInput {
  action: StoryAction;
  note?: string;
}

/**
 * Whether a delivery's first `n` attempts are recorded, answers included: an attempt is counted
 * when it opens, before its request leaves, and its claim is let go once its answer is written.
 */
export function attemptsRecorded(
  row: { attempts: number; lockedUntil: Date | null } | null | undefined,
  n = 1,
): boolean {
  return !!row && row.attempts >= n && row.lockedUntil === null;
}

export function random(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** The buses this machine has: the in-process one always, JetStream when NATS_URL is set. */
export function busKinds(): ("memory" | "jetstream")[] {
  return requireService("NATS_URL") ? ["memory", "jetstream"] : ["memory"];
}

/** A bus of its own: JetStream on a stream and subject prefix no other test file uses. */
export async function testBus(
  kind: "memory" | "jetstream",
): Promise<{ bus: EventBus; close(): Promise<void> }> {
  if (kind === "memory") {
    const bus = new MemoryBus();
    return { bus, close: () => bus.close() };
  }
  const url = process.env.NATS_URL!;
  const id = random();
  const stream = `T_${id.toUpperCase()}`;
  const bus = await JetStreamBus.connect(url, { stream, subjectPrefix: `t${id}.` });
  return {
    bus,
    close: async () => {
      await bus.close();
      const nc = await connect({ servers: url });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    },
  };
}

export interface FixtureOptions {
  /** Extra environment for the config (e.g. WEBHOOK_RETRY_SCHEDULE). */
  env?: Record<string, string>;
}

/**
 * One test file's world: its own database, a bus (in-process until `useBus` swaps it), config
 * with insecure targets allowed, and an organization. The workspace's rows (organizations, stories
 * and their outbox events) are made with the shared builders, as the workspace stores them, and
 * each event is published as its relay does; endpoints with this service's own functions.
 * Creating a database is the slow part: one fixture per file.
 */
export async function webhooksFixture(options: FixtureOptions = {}) {
  const database: TestDatabase = await testDatabase();
  const { db } = database;
  const config: Config = loadConfig({
    WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
    PGLITE_DIR: "memory",
    ...options.env,
  });
  let current = await testBus("memory");
  const runtime = (env: Record<string, string> = {}) =>
    testRuntime({
      database,
      bus: current.bus,
      config: loadConfig({
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        PGLITE_DIR: "memory",
        ...options.env,
        ...env,
      }),
    });
  const endpointDeps = () => ({ db, secretsKey: secretsKey(config), allowInsecureTargets: true });

  async function organization(): Promise<string> {
    const org = await insertOrganization(db, { slug: `org-${random()}`, name: "Test Org" });
    return org.id;
  }
  const orgId = await organization();

  /** Applies a transition and publishes its outbox event as the relay does; returns its id. */
  async function transition(storyId: string, input: TransitionInput): Promise<string> {
    const { eventId } = await applyStoryAction(db, storyId, input.action, { note: input.note });
    if (!eventId) throw new Error(`${input.action} writes no event`);
    const [row] = await db.select().from(outboxEvents).where(eq(outboxEvents.id, eventId));
    await current.bus.publish(storyEventOf(row!));
    await db
      .update(outboxEvents)
      .set({ publishedAt: new Date() })
      .where(eq(outboxEvents.id, eventId));
    return eventId;
  }

  const newStory = (org: string, topics: string[] = []) =>
    insertStory(db, org, { type: "insight", slug: `s-${random()}`, title: "A story", topics });

  return {
    database,
    db,
    config,
    get bus() {
      return current.bus;
    },
    /** A runtime for a service: this database, the current bus, config with `env` on top. */
    runtime,
    /** From now on, relay to (and let services consume from) a fresh bus of this kind. */
    async useBus(kind: "memory" | "jetstream") {
      await current.close();
      current = await testBus(kind);
      return current.bus;
    },
    orgId,
    organization,
    /** Registers an endpoint (with any of its options); returns its id and `whsec_` secret. */
    async endpoint(
      url: string,
      events: SubscribableEventType[] = ALL_EVENTS,
      org = orgId,
      options: Omit<EndpointCreateIn, "url" | "events"> = {},
    ) {
      const { row, secret } = await createWebhookEndpoint(endpointDeps(), org, {
        url,
        events,
        ...options,
      });
      return { id: row.id, secret };
    },
    async story(org = orgId) {
      return newStory(org);
    },
    transition,
    /** A new story (with these topic slugs) sent for review: one `story.submitted` event. */
    async submitted(
      org = orgId,
      topics: string[] = [],
    ): Promise<{ storyId: string; eventId: string }> {
      const story = await newStory(org, topics);
      return { storyId: story.id, eventId: await transition(story.id, { action: "submit" }) };
    },
    /**
     * A pending delivery to `endpointId` (of a `story.published` event, due now) written
     * straight into the queue, with `fields` over those.
     */
    async pendingDelivery(
      endpointId: string,
      fields: Partial<typeof webhookDeliveries.$inferInsert> = {},
    ) {
      const [row] = await db
        .insert(webhookDeliveries)
        .values({
          id: newId(),
          organizationId: orgId,
          endpointId,
          eventId: newId(),
          eventType: "story.published",
          eventCreatedAt: new Date(),
          nextAttemptAt: new Date(),
          ...fields,
        })
        .returning();
      return row!;
    },
    async deliveriesOf(endpointId: string) {
      return db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.endpointId, endpointId));
    },
    async delivery(endpointId: string, eventId: string) {
      const [row] = await db
        .select()
        .from(webhookDeliveries)
        .where(
          and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.eventId, eventId)),
        );
      return row;
    },
    /** When this service recorded the event as fanned out (its own record), or null. */
    async fannedOutAt(eventId: string): Promise<Date | null> {
      const [row] = await db
        .select()
        .from(webhookFannedOutEvents)
        .where(eq(webhookFannedOutEvents.eventId, eventId));
      return row?.fannedOutAt ?? null;
    },
    async endpointRow(endpointId: string) {
      const [row] = await db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpointId));
      return row!;
    },
    async close() {
      await current.close();
      await database.close();
    },
  };
}

export type Fixture = Awaited<ReturnType<typeof webhooksFixture>>;

/**
 * Calls the service's internal API (`/internal/v1` + `path`) in-process with the fixture's
 * ADMIN_TOKEN, or `token` when given (null: none); returns the status and the parsed JSON.
 */
export async function internalCall(
  service: ServiceHandle,
  fx: Pick<Fixture, "config">,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = adminToken(fx.config),
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await service.app.handle(
    new Request(`http://localhost/internal/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/**
 * A webhooks service delivering in-process with fast retries (SHORT_SCHEDULE, a 20 ms poll), its
 * fixture and a receiver on 127.0.0.1, made before and stopped after the file's tests.
 */
export function deliveringWorld() {
  const world = {
    fx: undefined as unknown as Fixture,
    receiver: undefined as unknown as Receiver,
    service: undefined as unknown as ServiceHandle,
  };
  beforeAll(async () => {
    world.fx = await webhooksFixture();
    world.receiver = startReceiver();
    world.service = await createWebhooksService(
      world.fx.runtime({ WEBHOOK_RETRY_SCHEDULE: SHORT_SCHEDULE }),
      { pollIntervalMs: 20 },
    );
  });
  afterAll(async () => {
    await world.service.stop();
    await world.fx.close();
    world.receiver.stop();
  });
  return world;
}
