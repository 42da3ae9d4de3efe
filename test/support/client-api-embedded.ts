import { type ClientApiServiceOptions, createClientApiService } from "@newsroom/client-api/app";
import type { EventBus } from "@newsroom/shared/bus/index";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { type Config, loadConfig, secretsKey } from "@newsroom/shared/config";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { createWorkspaceApp, workspaceCalls } from "@newsroom/workspace/app";

const ADMIN_TOKEN = "client-api-test-admin-token";

export const random = () => Math.random().toString(36).slice(2, 10);

/**
 * The embedded composition as far as the client API sees it: the workspace's internal API (with
 * the webhooks service it sends endpoint commands to) and the client API in one process, on one
 * database and one bus. Changes go through the workspace's routes, which announce them, exactly
 * as in `npm start`.
 */
export interface Embedded {
  database: TestDatabase;
  bus: EventBus;
  config: Config;
  service: Awaited<ReturnType<typeof createClientApiService>>;
  /** The workspace's internal API with the admin token. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  workspace(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A GET of the client API, with the key as Bearer unless it is in the path. */
  get(path: string, key?: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function embedded(
  options: { bus?: EventBus; service?: ClientApiServiceOptions } = {},
): Promise<Embedded> {
  const database = await testDatabase();
  const bus = options.bus ?? new MemoryBus();
  const config = loadConfig({
    SERVICE_ENV: "development",
    NEWSROOM_HOST: "https://news.example.com",
  });
  const service = await createClientApiService(
    testRuntime({ database, bus, config }),
    options.service,
  );
  // The webhooks service owns the endpoints the workspace's routes manage; its workers wait
  // (nothing here is delivered).
  const webhooks = await createWebhooksService(testRuntime({ database, bus, config }), {
    pollIntervalMs: 60_000,
    reconcileIntervalMs: 60_000,
  });
  const workspaceApp = createWorkspaceApp({
    db: database.db,
    bus,
    secretsKey: secretsKey(config),
    adminToken: ADMIN_TOKEN,
    serviceEnv: config.SERVICE_ENV,
    kickRelay: () => {},
    calls: workspaceCalls(config, { webhooks: (request) => webhooks.app.handle(request) }),
    addresses: { houseOrg: config.HOUSE_ORG, newsroomHost: config.NEWSROOM_HOST },
  });
  const api = edgeInProcess((request) => service.app.handle(request));
  return {
    database,
    bus,
    config,
    service,
    async workspace(method, path, body) {
      const response = await workspaceApp.handle(
        new Request(`http://localhost/internal/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    get: (path, key, headers = {}) =>
      api(
        new Request(`http://localhost${path}`, {
          headers: key ? { authorization: `Bearer ${key}`, ...headers } : headers,
        }),
      ),
    async close() {
      await service.stop();
      await webhooks.stop();
      await bus.close();
      await database.close();
    },
  };
}

/** An organization made through the workspace, with a key of every scope and two stories. */
export async function organizationWithStories(e: Embedded) {
  const slug = `org-${random()}`;
  const org = await e.workspace("POST", "/orgs", {
    slug,
    name: `Org ${slug}`,
    newsroom_running: true,
  });
  if (org.status !== 201) throw new Error(`organization: ${JSON.stringify(org.body)}`);
  const key = await newKey(e, slug, [
    "stories:read",
    "approvals:read",
    "feed:read",
    "webhooks:read",
  ]);
  const storyIds: string[] = [];
  for (const name of ["first", "second"]) {
    const story = await e.workspace("POST", `/orgs/${slug}/stories`, {
      type: "press_release",
      slug: `${name}-story`,
      title: `The ${name} story`,
      summary: "A summary",
      body: [{ type: "paragraph", text: `Body of the ${name} story.` }],
      topics: ["community"],
    });
    if (story.status !== 201) throw new Error(`story: ${JSON.stringify(story.body)}`);
    storyIds.push(story.body.id);
  }
  return { id: org.body.id as string, slug, key: key.secret, keyId: key.id, storyIds };
}

export async function newKey(e: Embedded, org: string, scopes: string[]) {
  const key = await e.workspace("POST", `/orgs/${org}/keys`, {
    environment: "test",
    scopes,
    lifetime_days: 30,
  });
  if (key.status !== 201) throw new Error(`key: ${JSON.stringify(key.body)}`);
  return { id: key.body.id as string, secret: key.body.secret as string };
}
