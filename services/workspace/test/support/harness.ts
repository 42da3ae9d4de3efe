import type { EventBus } from "@newsroom/shared/bus/index";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import type { Config } from "@newsroom/shared/config";
import type { ServiceCall } from "@newsroom/shared/http/internal-client";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { createWorkspaceApp, workspaceCalls } from "../../src/app.ts";
import type { TxtLookup } from "../../src/identity/sso/domains.ts";
import type { PublicAddresses } from "../../src/sites/public-pages.ts";

export const ADMIN_TOKEN = "workspace-test-admin-token";
export const SECRETS_KEY = Buffer.alloc(32, 9);
export const TEST_ADDRESSES: PublicAddresses = {
  houseOrg: "armage",
  newsroomHost: "http://localhost:3000/newsrooms",
};

export interface Harness {
  database: TestDatabase;
  bus: EventBus;
  /** The app behind the edge, for a real server (`Bun.serve({ fetch })`). */
  fetch: (request: Request) => Promise<Response>;
  /** Calls the internal API with the admin token; returns status and parsed JSON. */
  call(
    method: string,
    path: string,
    body?: unknown,
    token?: string | null,
    // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  ): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function workspaceHarness(
  options: {
    bus?: EventBus;
    serviceEnv?: Config["SERVICE_ENV"];
    backend?: "postgres" | "pglite";
    /** Where single sign-on domain proofs are looked up (a test DNS server). */
    lookupTxt?: TxtLookup;
    /** This database instead of a new one (a flow that runs another service beside). */
    database?: TestDatabase;
    /**
     * The webhooks service's internal API (a flow across both services builds it); unset, every
     * endpoint command answers 503, as when WEBHOOKS_URL is unset.
     */
    webhooks?: ServiceCall;
    /** HOUSE_ORG and NEWSROOM_HOST (default: the house `armage`, hosted sites on localhost). */
    addresses?: PublicAddresses;
  } = {},
): Promise<Harness> {
  const database = options.database ?? (await testDatabase({ backend: options.backend }));
  const bus = options.bus ?? new MemoryBus();
  const app = createWorkspaceApp({
    db: database.db,
    bus,
    secretsKey: SECRETS_KEY,
    adminToken: ADMIN_TOKEN,
    serviceEnv: options.serviceEnv ?? "development",
    kickRelay: () => {},
    calls: workspaceCalls({}, { webhooks: options.webhooks }),
    lookupTxt: options.lookupTxt,
    addresses: options.addresses ?? TEST_ADDRESSES,
    status: {
      db: database.db,
      houseOrg: (options.addresses ?? TEST_ADDRESSES).houseOrg,
      publicBaseUrl: "http://localhost:3000",
      kickRelay: () => {},
    },
  });
  const handle = edgeInProcess((request) => app.handle(request));
  return {
    database,
    bus,
    fetch: (request) => handle(request),
    async call(method, path, body, token = ADMIN_TOKEN) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await handle(
        new Request(`http://localhost/internal/v1${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await bus.close();
      await database.close();
    },
  };
}

/** An organization with one story in draft; returns their ids. */
export async function orgWithDraft(h: Harness, slug: string) {
  const org = await h.call("POST", "/orgs", { slug, name: `Org ${slug}`, newsroom_running: true });
  const story = await h.call("POST", `/orgs/${slug}/stories`, {
    type: "press_release",
    slug: "first-story",
    title: "First story",
    summary: "A summary",
    body: [{ type: "paragraph", text: "Hello" }],
    topics: ["community"],
  });
  return { orgId: org.body.id as string, storyId: story.body.id as string };
}

/** A story transition through the internal API (`action` and any other fields of the body). */
export function transition(
  h: Harness,
  storyId: string,
  action: string,
  extra: Record<string, unknown> = {},
) {
  return h.call("POST", `/stories/${storyId}/transitions`, { action, ...extra });
}

/**
 * `bus` with another `publish` (one that fails, waits or records what it is given), subscribing
 * through `bus` itself; closing it leaves `bus` open.
 */
export function busPublishingWith(bus: EventBus, publish: EventBus["publish"]): EventBus {
  return {
    kind: bus.kind,
    publish,
    subscribe: (handler, options) => bus.subscribe(handler, options),
    close: async () => {},
  };
}
