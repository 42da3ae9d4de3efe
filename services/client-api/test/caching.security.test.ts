import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import { apiKeys, webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { requireService } from "@newsroom/shared/testing/database";
import { eq } from "drizzle-orm";
import { ReadCache } from "../src/caching/read-cache.ts";
import { type Embedded, embedded, newKey, organizationWithStories } from "./support/embedded.ts";

const ROUTES = (storyId: string) => [
  "/v1/stories",
  `/v1/stories/${storyId}`,
  "/v1/approvals",
  "/v1/feed.json",
  "/v1/feed.xml",
  "/v1/webhook_endpoints",
  "/v1/webhook_deliveries",
];

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe("revocation with the cache on (embedded mode)", () => {
  let e: Embedded;
  let org: Awaited<ReturnType<typeof organizationWithStories>>;
  beforeAll(async () => {
    e = await embedded();
    org = await organizationWithStories(e);
  });
  afterAll(async () => {
    await e.close();
  });

  test("a key revoked in the workspace is refused on the very next request, on every route", async () => {
    const routes = ROUTES(org.storyIds[0]!);
    const all = ["stories:read", "approvals:read", "feed:read", "webhooks:read"];
    for (const route of routes) {
      const key = await newKey(e, org.slug, all);
      // Cached: the key record and the answer.
      for (let i = 0; i < 3; i++) expect((await e.get(route, key.secret)).status).toBe(200);
      const revoked = await e.workspace("POST", `/keys/${key.id}/revoke`);
      expect(revoked.status).toBe(200);
      const next = await e.get(route, key.secret);
      expect(next.status).toBe(401);
      expect(next.headers.get("www-authenticate")).toBe("Bearer");
      expect(await codeOf(next)).toBe("invalid_api_key");
    }
  });

  test("a feed key revoked in the workspace is refused on the next request by URL", async () => {
    const key = await newKey(e, org.slug, ["feed:read"]);
    const path = `/v1/feed.xml?key=${encodeURIComponent(key.secret)}`;
    expect((await e.get(path)).status).toBe(200);
    expect((await e.get(path)).status).toBe(200);
    await e.workspace("POST", `/keys/${key.id}/revoke`);
    expect((await e.get(path)).status).toBe(401);
  });

  test("a revocation while the key's first request is in flight still holds after it", async () => {
    for (let i = 0; i < 10; i++) {
      const key = await newKey(e, org.slug, ["stories:read"]);
      const inFlight = e.get("/v1/stories", key.secret);
      const revoked = await e.workspace("POST", `/keys/${key.id}/revoke`);
      expect(revoked.status).toBe(200);
      expect([200, 401]).toContain((await inFlight).status);
      expect((await e.get("/v1/stories", key.secret)).status).toBe(401);
    }
  });

  test("answers come from memory: only the announcement drops them", async () => {
    const key = await newKey(e, org.slug, ["stories:read"]);
    expect((await e.get("/v1/stories", key.secret)).status).toBe(200);
    // A write that bypasses the workspace is not announced, and the cached record still answers.
    await e.database.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.id, key.id));
    expect((await e.get("/v1/stories", key.secret)).status).toBe(200);
    // What the workspace publishes after its commit drops the organization's entries.
    await e.bus.publish({
      id: newId(),
      type: EVENT.dataChanged,
      created_at: new Date().toISOString(),
      data: { organization_id: org.id, scope: "keys" },
    });
    expect((await e.get("/v1/stories", key.secret)).status).toBe(401);
  });
});

describe("what the webhooks service writes is never served stale", () => {
  let e: Embedded;
  let org: Awaited<ReturnType<typeof organizationWithStories>>;
  beforeAll(async () => {
    e = await embedded();
    org = await organizationWithStories(e);
  });
  afterAll(async () => {
    await e.close();
  });

  test("an endpoint disabled and a delivery written outside the workspace show on the next request", async () => {
    const endpoint = await e.workspace("POST", `/orgs/${org.slug}/webhook_endpoints`, {
      url: "https://hooks.example.com/in",
      events: ["story.published"],
    });
    expect(endpoint.status).toBe(201);
    const endpointId = endpoint.body.id as string;
    const list = async () =>
      (await (await e.get("/v1/webhook_endpoints", org.key)).json()) as {
        data: { id: string; status: string }[];
      };
    const log = async () =>
      (await (await e.get("/v1/webhook_deliveries", org.key)).json()) as {
        data: { id: string; status: string }[];
      };
    expect((await list()).data[0]!.status).toBe("enabled");
    expect((await log()).data).toEqual([]);

    // As the dispatcher does, with no announcement.
    const deliveryId = newId();
    await e.database.db.insert(webhookDeliveries).values({
      id: deliveryId,
      organizationId: org.id,
      endpointId,
      eventId: newId(),
      eventType: "story.published",
      storyId: org.storyIds[0]!,
      eventCreatedAt: new Date(),
      status: "pending",
      attempts: 0,
    });
    expect((await log()).data.map((d) => [d.id, d.status])).toEqual([[deliveryId, "pending"]]);
    await e.database.db
      .update(webhookDeliveries)
      .set({ status: "delivered", attempts: 1, deliveredAt: new Date() })
      .where(eq(webhookDeliveries.id, deliveryId));
    expect((await log()).data[0]!.status).toBe("delivered");
    await e.database.db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: "failing" })
      .where(eq(webhookEndpoints.id, endpointId));
    expect((await list()).data[0]!.status).toBe("disabled");
  });
});

describe("where events may arrive late, nothing is cached", () => {
  test("a service told not to cache reads the key on every request", async () => {
    const e = await embedded({ service: { cache: false } });
    try {
      expect(e.service.cache).toBeUndefined();
      const org = await organizationWithStories(e);
      expect((await e.get("/v1/stories", org.key)).status).toBe(200);
      await e.database.db
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(eq(apiKeys.id, org.keyId));
      expect((await e.get("/v1/stories", org.key)).status).toBe(401);
    } finally {
      await e.close();
    }
  });

  const natsUrl = requireService("NATS_URL");
  test.skipIf(!natsUrl)(
    "on JetStream (distributed mode) a revocation written anywhere shows on the next request",
    async () => {
      const suffix = Math.random().toString(36).slice(2, 8);
      const stream = `T_CLIENTAPI_${suffix.toUpperCase()}`;
      const bus = await JetStreamBus.connect(natsUrl!, { stream, subjectPrefix: `t${suffix}.` });
      const e = await embedded({ bus });
      try {
        expect(e.service.cache).toBeUndefined();
        const org = await organizationWithStories(e);
        for (let i = 0; i < 3; i++) expect((await e.get("/v1/stories", org.key)).status).toBe(200);
        // Written by another replica's workspace: this process has not heard of it yet.
        await e.database.db
          .update(apiKeys)
          .set({ revokedAt: new Date() })
          .where(eq(apiKeys.id, org.keyId));
        expect((await e.get("/v1/stories", org.key)).status).toBe(401);
      } finally {
        await e.close();
        const nc = await connect({ servers: natsUrl! });
        await (await jetstreamManager(nc)).streams.delete(stream);
        await nc.close();
      }
    },
    20_000,
  );
});

describe("a read that overlaps a change is not kept", () => {
  test("a value read before a drop of its organization is refused", () => {
    const cache = new ReadCache();
    const startedAt = cache.begin();
    cache.dropOrganization("org-a");
    expect(cache.set("org-a", "k", "stale", startedAt)).toBe(false);
    expect(cache.get("k")).toBeUndefined();
    // Another organization's drop does not refuse it; a read begun after the drop is kept.
    const later = cache.begin();
    cache.dropOrganization("org-b");
    expect(cache.set("org-a", "k", "fresh", later)).toBe(true);
    expect(cache.get<string>("k")).toBe("fresh");
  });

  test("a read under way when the organization changes is neither kept nor joined", async () => {
    const cache = new ReadCache();
    let release!: (value: string) => void;
    const slow = new Promise<string>((resolve) => {
      release = resolve;
    });
    const reads: string[] = [];
    const first = cache.through(
      "k",
      () => {
        reads.push("first");
        return slow;
      },
      () => "org-a",
    );
    // Joins the read under way: nothing changed since it started.
    const joined = cache.through(
      "k",
      async () => {
        reads.push("joined");
        return "never";
      },
      () => "org-a",
    );
    cache.dropOrganization("org-a");
    // After the change: a read of its own, not the one that began before it.
    const after = cache.through(
      "k",
      async () => {
        reads.push("after");
        return "new";
      },
      () => "org-a",
    );
    release("old");
    expect(await first).toBe("old");
    expect(await joined).toBe("old");
    expect(await after).toBe("new");
    expect(reads).toEqual(["first", "after"]);
    expect(cache.get<string>("k")).toBe("new");
  });

  test("dropping everything refuses every read under way", () => {
    const cache = new ReadCache();
    const startedAt = cache.begin();
    cache.dropAll();
    expect(cache.set("org-a", "k", "stale", startedAt)).toBe(false);
  });
});
