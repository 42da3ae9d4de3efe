import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import {
  apiKeys,
  storyVersions,
  webhookDeliveries,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { requireService } from "@newsroom/shared/testing/database";
import { eq } from "drizzle-orm";
import {
  type Embedded,
  embedded,
  newKey,
  organizationWithStories,
} from "../support/client-api-embedded.ts";

/**
 * A flow across the workspace and the client API with its cache on: a key the workspace revokes
 * is refused at once, even during a request in flight; webhook data is never served stale; and
 * nothing is cached on JetStream.
 */
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

describe("revocation with the cache on", () => {
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

  test("a change written straight to the database, without any announcement, shows on the next request", async () => {
    const key = await newKey(e, org.slug, ["stories:read"]);
    const titleOf = async (storyId: string) => {
      const response = await e.get(`/v1/stories/${storyId}`, key.secret);
      expect(response.status).toBe(200);
      return ((await response.json()) as { title: string }).title;
    };
    const storyId = org.storyIds[0]!;
    const title = await titleOf(storyId);
    expect(await titleOf(storyId)).toBe(title);
    // Not through the workspace: no event, only the row and the trigger's version.
    await e.database.db
      .update(storyVersions)
      .set({ title: "Written by hand" })
      .where(eq(storyVersions.storyId, storyId));
    expect(await titleOf(storyId)).toBe("Written by hand");
    await e.database.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.id, key.id));
    expect((await e.get(`/v1/stories/${storyId}`, key.secret)).status).toBe(401);
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

describe("caching on any bus", () => {
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
    "on JetStream (distributed mode) answers are cached, and a revocation written anywhere shows on the next request",
    async () => {
      const suffix = Math.random().toString(36).slice(2, 8);
      const stream = `T_CLIENTAPI_${suffix.toUpperCase()}`;
      const bus = await JetStreamBus.connect(natsUrl!, { stream, subjectPrefix: `t${suffix}.` });
      const e = await embedded({ bus });
      try {
        expect(e.service.cache).toBeDefined();
        const org = await organizationWithStories(e);
        for (let i = 0; i < 3; i++) expect((await e.get("/v1/stories", org.key)).status).toBe(200);
        expect(e.service.cache!.size).toBe(1);
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
