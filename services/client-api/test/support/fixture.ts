import { expect } from "bun:test";
import { KEY_SCOPES, type KeyEnvironment, type KeyScope } from "@newsroom/shared/api-keys";
import { loadConfig, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { apiKeys, webhookDeliveries } from "@newsroom/shared/db/schema";
import type { WebhookEventType } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import {
  applyStoryAction,
  insertApiKey,
  insertOrganization,
  insertStory,
  insertWebhookEndpoint,
} from "@newsroom/shared/testing/builders";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { eq } from "drizzle-orm";
import { type ClientApiOptions, createClientApiApp } from "../../src/app.ts";

/** The API's public address in these tests: where the feeds say they live. */
export const PUBLIC_BASE_URL = "https://api.newsroom.example";

export function random(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** A title with everything a feed must escape: markup, ampersand, quotes and non-ASCII. */
export const AWKWARD_TITLE = `Tom & Jerry <b>"quoted"</b> 'café' — ünïcødé 日本 🚀 ]]> end`;

export async function makeKey(
  db: Db,
  organizationId: string,
  scopes: readonly KeyScope[],
  environment: KeyEnvironment = "test",
): Promise<{ id: string; secret: string }> {
  return insertApiKey(db, organizationId, { scopes, environment });
}

export interface OrgData {
  id: string;
  slug: string;
  /** Every story id of the organization. */
  storyIds: string[];
  published: string[];
  inReview: string[];
  /** A published story with a rejection and then an approval. */
  decided: string;
  endpointIds: string[];
  deliveryIds: string[];
  /** A key with every scope. */
  key: string;
}

/** Stories taken through their editorial actions, so they carry decisions and events. */
async function seedOrganization(db: Db, name: string, running: boolean): Promise<OrgData> {
  const slug = `${name.toLowerCase()}-${random()}`;
  const org = await insertOrganization(db, { slug, name, newsroomRunning: running });
  const decided = await insertStory(db, org.id, {
    type: "press_release",
    slug: "awkward-title",
    title: AWKWARD_TITLE,
    summary: `Summary with <tags> & "quotes" — ü`,
    body: [
      { type: "heading", level: 2, text: "Heading <one> & more" },
      { type: "paragraph", text: `Paragraph with "quotes", <script>alert(1)</script> and é.` },
      { type: "list", items: ["first <item>", "second & last"] },
      { type: "image", url: "https://cdn.example.com/x.jpg" },
    ],
    topics: ["policy", "culture"],
  });
  await applyStoryAction(db, decided.id, "submit");
  await applyStoryAction(db, decided.id, "reject", { note: "Add a source." });
  await applyStoryAction(db, decided.id, "submit");
  await applyStoryAction(db, decided.id, "approve", { actorRole: "approver" });
  await applyStoryAction(db, decided.id, "publish");
  const coverage = await insertStory(db, org.id, {
    type: "in_the_news",
    slug: "in-the-news",
    title: "Coverage in the press",
    summary: "A newspaper wrote about us.",
    externalUrl: "https://press.example.com/story",
  });
  for (const action of ["submit", "approve", "publish"] as const) {
    await applyStoryAction(db, coverage.id, action);
  }
  const review = await insertStory(db, org.id, {
    type: "insight",
    slug: "in-review",
    title: "Waiting for review",
  });
  await applyStoryAction(db, review.id, "submit");
  const draft = await insertStory(db, org.id, { type: "event", slug: "draft", title: "A draft" });
  const endpointIds: string[] = [];
  for (const url of ["https://hooks.example.com/one", "https://hooks.example.com/two"]) {
    const { row } = await insertWebhookEndpoint(db, org.id, {
      url,
      events: ["story.published", "story.submitted"],
      secretsKey: secretsKey(loadConfig({})),
    });
    endpointIds.push(row.id);
  }
  const deliveryIds: string[] = [];
  for (const [index, endpointId] of [endpointIds[0]!, endpointIds[1]!, endpointIds[0]!].entries()) {
    const id = newId();
    deliveryIds.push(id);
    await db.insert(webhookDeliveries).values({
      id,
      organizationId: org.id,
      endpointId,
      eventId: newId(),
      eventType: "story.published" satisfies WebhookEventType,
      storyId: decided.id,
      eventCreatedAt: new Date(),
      status: index === 0 ? "delivered" : "pending",
      attempts: 1,
      lastStatusCode: index === 0 ? 200 : 500,
      lastError: index === 0 ? null : "HTTP 500",
      nextAttemptAt: index === 0 ? null : new Date(Date.now() + 30_000),
      createdAt: new Date(Date.now() - (3 - index) * 1000),
      deliveredAt: index === 0 ? new Date() : null,
    });
  }
  const { secret } = await makeKey(db, org.id, KEY_SCOPES);
  return {
    id: org.id,
    slug,
    storyIds: [decided.id, coverage.id, review.id, draft.id],
    published: [decided.id, coverage.id],
    inReview: [review.id],
    decided: decided.id,
    endpointIds,
    deliveryIds,
    key: secret,
  };
}

export interface Fixture {
  database: TestDatabase;
  db: Db;
  api: ReturnType<typeof createClientApiApp>;
  /** Two organizations with the same data, and one whose newsroom is not running. */
  a: OrgData;
  b: OrgData;
  idle: OrgData;
  /** Keys of organization A for the failure cases. */
  keys: {
    expired: string;
    revoked: string;
    /** A live key on this (development) deployment. */
    otherEnvironment: string;
    /** Well-formed, never issued. */
    unknown: string;
    /** Only feed:read: the one kind allowed in a URL. */
    feedOnly: string;
    /** Every scope but the one named. */
    allBut: Record<KeyScope, string>;
  };
  /** A GET through the edge (request id, version headers), with the key as Bearer. */
  get(
    path: string,
    options?: { key?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function clientApiFixture(
  options: Partial<Pick<ClientApiOptions, "keyUsage">> = {},
): Promise<Fixture> {
  const database = await testDatabase();
  const db = database.db;
  const a = await seedOrganization(db, "Acme", true);
  const b = await seedOrganization(db, "Bravo", true);
  const idle = await seedOrganization(db, "Idle", false);
  const expired = await makeKey(db, a.id, KEY_SCOPES);
  await db
    .update(apiKeys)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(apiKeys.id, expired.id));
  const revoked = await insertApiKey(db, a.id, { scopes: KEY_SCOPES, revokedAt: new Date() });
  const otherEnvironment = await makeKey(db, a.id, KEY_SCOPES, "live");
  const feedOnly = await makeKey(db, a.id, ["feed:read"]);
  const allBut = {} as Record<KeyScope, string>;
  for (const scope of KEY_SCOPES) {
    allBut[scope] = (
      await makeKey(
        db,
        a.id,
        KEY_SCOPES.filter((s) => s !== scope),
      )
    ).secret;
  }
  const api = createClientApiApp({
    db,
    config: loadConfig({
      SERVICE_ENV: "development",
      NEWSROOM_HOST: "https://news.example.com",
      PUBLIC_BASE_URL: PUBLIC_BASE_URL,
    }),
    keyUsage: options.keyUsage,
  });
  const handle = edgeInProcess((request) => api.app.handle(request));
  return {
    database,
    db,
    api,
    a,
    b,
    idle,
    keys: {
      expired: expired.secret,
      revoked: revoked.secret,
      otherEnvironment: otherEnvironment.secret,
      unknown: `armk_test_${"A".repeat(43)}`,
      feedOnly: feedOnly.secret,
      allBut,
    },
    get: (path, { key, headers = {} } = {}) =>
      handle(
        new Request(`http://localhost${path}`, {
          headers: key ? { authorization: `Bearer ${key}`, ...headers } : headers,
        }),
      ),
    close: async () => {
      await api.keyUsage.stop();
      await database.close();
    },
  };
}

/** An error body's parts that must match between two answers (not the request id). */
export async function errorShape(response: Response) {
  const body = (await response.json()) as { error: Record<string, unknown> };
  const { request_id: _ignored, ...rest } = body.error;
  return { status: response.status, error: rest };
}

/** Asserts that a value matches a record schema, showing the first mismatch when not. */
export function expectShape(schema: TSchema, value: unknown): void {
  const first = Value.Errors(schema, value).First();
  expect(first ? `${first.path}: ${first.message}` : null).toBeNull();
}
