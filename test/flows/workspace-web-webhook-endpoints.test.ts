import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  auditEvents,
  MEMBER_ROLES,
  type MemberRole,
  webhookDeliveries,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";
import { OPERATIONAL_EVENT_TYPES } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { MAX_ENDPOINTS_PER_ORGANIZATION } from "@newsroom/shared/webhook-endpoint-commands";
import { eq } from "drizzle-orm";
import type { PermissionAction } from "../../services/workspace/src/identity/members/permissions.ts";
import { readmeTable } from "../../services/workspace/test/support/permission-table.ts";
import {
  orgWithMembers,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * Webhook endpoints in the web app: who may add, test, disable, enable and delete one (cases
 * from docs/permissions.md's "Workspace permissions" table), another organization's endpoints (404, nothing
 * changed), the URL rules and the limit through the existing service, the delivery log and its
 * chart, and the 12-hour rule on every change.
 */
const table = readmeTable();
const HOUR = 3_600_000;

describe("webhook endpoints in the web app", () => {
  let h: WebHarness;
  let receiver: Receiver;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const clients = {} as Record<MemberRole, WebClient>;

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    receiver = startReceiver();
    org = await orgWithMembers(h, "hooks-org", 0);
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
  }, 120_000);
  afterAll(async () => {
    receiver?.stop();
    await h?.close();
  });
  // At most 10 endpoints per organization: each test starts with none.
  afterEach(async () => {
    await db().delete(webhookEndpoints);
  });

  const db = () => h.embedded.runtime.database.db;
  const endpointRow = async (id: string) =>
    (await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0];
  const endpointCount = async () => (await db().select().from(webhookEndpoints)).length;
  const adminEndpoint = async (slug = "hooks-org", path = "/hook") => {
    const made = await h.admin("POST", `/orgs/${slug}/webhook_endpoints`, {
      url: receiver.url(path),
      events: ["story.published"],
    });
    return made.body.id as string;
  };

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("endpoint.create")![role];
    test(`${role}: endpoint.create is ${allowed ? "allowed" : "403"}`, async () => {
      const client = clients[role];
      expect((await client.get("/app/orgs/hooks-org/webhook-endpoints")).status).toBe(
        allowed ? 200 : 403,
      );
      const before = await endpointCount();
      const answer = await client.post("/app/orgs/hooks-org/webhook-endpoints", {
        url: receiver.url(`/count/${role}`),
        events: "story.published",
      });
      expect(answer.status).toBe(allowed ? 303 : 403);
      if (allowed) {
        // The secret is shown once, on the page the creation leads to; a reload shows it no more.
        const location = answer.headers.get("location")!;
        expect(location).toMatch(/^\/app\/webhook-endpoints\/[0-9a-f-]{36}\/created$/);
        const shown = await client.get(location);
        expect(shown.text).toMatch(/value="whsec_[A-Za-z0-9+/=]+"/);
        expect(shown.text).toContain("will not be shown again");
        const reloaded = await client.get(location);
        expect(reloaded.status).toBe(200);
        expect(reloaded.text).not.toContain("whsec_");
        expect(reloaded.text).toContain("is not shown again");
      }
      expect(await endpointCount()).toBe(before + (allowed ? 1 : 0));
    });
  }

  const CHANGES: {
    action: PermissionAction;
    path: string;
    expected: (id: string, hook: string) => unknown;
  }[] = [
    {
      action: "endpoint.test",
      path: "test",
      expected: (_id, hook) =>
        eventually(async () => receiver.at(hook).length > 0, {
          message: "the test event",
          timeoutMs: 10_000,
        }),
    },
    {
      action: "endpoint.disable",
      path: "disable",
      expected: async (id) => expect((await endpointRow(id))!.status).toBe("disabled"),
    },
    {
      action: "endpoint.enable",
      path: "enable",
      expected: async (id) => expect((await endpointRow(id))!.status).toBe("enabled"),
    },
    {
      action: "endpoint.delete",
      path: "delete",
      expected: async (id) => expect(await endpointRow(id)).toBeUndefined(),
    },
  ];

  for (const change of CHANGES) {
    for (const role of MEMBER_ROLES) {
      const allowed = table.get(change.action)![role];
      test(`${role}: ${change.action} is ${allowed ? "allowed" : "403"}`, async () => {
        // A path of its own, where its test event is looked for.
        const hook = `/changes/${newId()}`;
        const id = await adminEndpoint("hooks-org", hook);
        if (change.action === "endpoint.enable") {
          await h.admin("POST", `/webhook_endpoints/${id}/disable`);
        }
        const client = clients[role];
        await client.get("/app/");
        const answer = await client.post(`/app/webhook-endpoints/${id}/${change.path}`);
        if (allowed) {
          expect(answer.status).toBe(303);
          await change.expected(id, hook);
        } else {
          expect(answer.status).toBe(403);
          const after = await endpointRow(id);
          expect(after?.status).toBe(change.action === "endpoint.enable" ? "disabled" : "enabled");
          expect(receiver.at(hook)).toEqual([]);
        }
      });
    }
  }

  test("another organization's owner: 404 for its endpoints, nothing changes", async () => {
    const other = await orgWithMembers(h, "hooks-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    const id = await adminEndpoint("hooks-org", "/not-yours");
    for (const path of [
      "/app/orgs/hooks-org/webhook-endpoints",
      `/app/webhook-endpoints/${id}`,
      `/app/webhook-endpoints/${id}/delete`,
    ]) {
      expect((await stranger.get(path)).status).toBe(404);
    }
    await stranger.get("/app/orgs/hooks-other/webhook-endpoints");
    const before = (await db().select().from(webhookEndpoints)).length;
    const added = await stranger.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/stranger"),
      events: "story.published",
    });
    expect(added.status).toBe(404);
    for (const action of ["test", "disable", "enable", "delete"]) {
      expect((await stranger.post(`/app/webhook-endpoints/${id}/${action}`)).status).toBe(404);
    }
    expect((await db().select().from(webhookEndpoints)).length).toBe(before);
    expect((await endpointRow(id))!.status).toBe("enabled");
    await Bun.sleep(200);
    expect(receiver.at("/not-yours")).toEqual([]);
  });

  test("the service's URL rules and limit answer beside the form", async () => {
    const owner = clients.owner;
    await owner.get("/app/orgs/hooks-org/webhook-endpoints");
    const local = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: "https://receiver.internal/hook",
      events: "story.published",
    });
    expect(local.status).toBe(422);
    expect(local.text).toContain("The host name must be public.");
    const noEvents = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/no-events"),
    });
    expect(noEvents.status).toBe(422);
    expect(noEvents.text).toContain("Choose at least one event.");

    const full = await orgWithMembers(h, "hooks-full", 0);
    const fullOwner = await h.signedIn(full.members.owner);
    for (let i = 0; i < MAX_ENDPOINTS_PER_ORGANIZATION; i++) await adminEndpoint("hooks-full");
    await fullOwner.get("/app/orgs/hooks-full/webhook-endpoints");
    const refused = await fullOwner.post("/app/orgs/hooks-full/webhook-endpoints", {
      url: receiver.url("/eleventh"),
      events: "story.published",
    });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("at most 10 webhook endpoints. Delete one first.");
  });

  test("the form's options: a name and topics, shown in the list and on the endpoint's page", async () => {
    const owner = clients.owner;
    await owner.get("/app/orgs/hooks-org/webhook-endpoints");
    const tooLong = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/named"),
      events: "story.published",
      name: "n".repeat(101),
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toContain("Keep the name to 100 characters.");
    expect(tooLong.text).toMatch(/id="field-name-error"/);
    expect(await endpointCount()).toBe(0);

    const added = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/named"),
      events: "story.published",
      name: "Search <index>",
      topics: " climate, energy ,climate",
    });
    expect(added.status).toBe(303);
    const [row] = await db().select().from(webhookEndpoints);
    expect(row).toMatchObject({ name: "Search <index>", topics: ["climate", "energy"] });
    const list = await owner.get("/app/orgs/hooks-org/webhook-endpoints");
    expect(list.text).toContain("Search &lt;index&gt;");
    const page = await owner.get(`/app/webhook-endpoints/${row!.id}`);
    expect(page.text).toContain("climate, energy");
  });

  test("the form lists the alert event types; the endpoint's page shows how close it is to being disabled", async () => {
    const owner = clients.owner;
    const form = await owner.get("/app/orgs/hooks-org/webhook-endpoints");
    for (const type of OPERATIONAL_EVENT_TYPES) {
      expect(form.text).toContain(`name="events" value="${type}">`);
    }
    const added = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/pager"),
      events: "webhook_endpoint.failing",
    });
    expect(added.status).toBe(303);
    const [row] = await db().select().from(webhookEndpoints);
    expect(row!.events).toEqual(["webhook_endpoint.failing"]);
    const before = await owner.get(`/app/webhook-endpoints/${row!.id}`);
    expect(before.text).toContain('<span class="status">enabled</span>');
    await db()
      .update(webhookEndpoints)
      .set({ failureAlertPercent: 70 })
      .where(eq(webhookEndpoints.id, row!.id));
    const after = await owner.get(`/app/webhook-endpoints/${row!.id}`);
    expect(after.text).toContain("enabled, failing: 70% of the disable threshold reached");
  });

  test("the form's rate and order: refused beside their fields, then stored and shown on the endpoint's page", async () => {
    const owner = clients.owner;
    await owner.get("/app/orgs/hooks-org/webhook-endpoints");
    for (const rate of ["0", "1001", "2.5", "fast"]) {
      const refused = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
        url: receiver.url("/paced"),
        events: "story.published",
        rate_limit_per_second: rate,
      });
      expect(refused.status).toBe(422);
      expect(refused.text).toMatch(
        /id="field-rate_limit_per_second-error">Enter a whole number from 1 to 1000/,
      );
    }
    const badOrder = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/paced"),
      events: "story.published",
      ordering: "alphabetical",
    });
    expect(badOrder.status).toBe(422);
    expect(badOrder.text).toMatch(/id="ordering-error">Choose how each story/);
    expect(await endpointCount()).toBe(0);

    // Left empty: no rate, events as they come.
    const plain = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/plain"),
      events: "story.published",
    });
    expect(plain.status).toBe(303);
    const [first] = await db().select().from(webhookEndpoints);
    expect(first).toMatchObject({ rateLimitPerSecond: null, ordering: "none" });
    await db().delete(webhookEndpoints);

    const added = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/paced"),
      events: "story.published",
      rate_limit_per_second: "25",
      ordering: "story",
    });
    expect(added.status).toBe(303);
    const [row] = await db().select().from(webhookEndpoints);
    expect(row).toMatchObject({ rateLimitPerSecond: 25, ordering: "story" });
    const page = await owner.get(`/app/webhook-endpoints/${row!.id}`);
    expect(page.text).toContain("at most 25 deliveries a second");
    expect(page.text).toContain("in the order they happened");
  });

  test("the edit form changes the rate and order, refusing beside the field; audited; a viewer cannot", async () => {
    const id = await adminEndpoint("hooks-org", "/edited");
    const owner = clients.owner;
    const page = await owner.get(`/app/webhook-endpoints/${id}`);
    expect(page.text).toContain(`href="/app/webhook-endpoints/${id}/options"`);
    const form = await owner.get(`/app/webhook-endpoints/${id}/options`);
    expect(form.status).toBe(200);
    expect(form.text).toMatch(/<label for="field-rate_limit_per_second">/);
    expect(form.text).toMatch(/name="ordering" value="none" checked/);

    const refused = await owner.post(`/app/webhook-endpoints/${id}/options`, {
      rate_limit_per_second: "5000",
      ordering: "story",
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/id="field-rate_limit_per_second-error"/);
    expect(refused.text).toMatch(/name="ordering" value="story" checked/);
    expect(await endpointRow(id)).toMatchObject({ rateLimitPerSecond: null, ordering: "none" });

    const saved = await owner.post(`/app/webhook-endpoints/${id}/options`, {
      rate_limit_per_second: "12",
      ordering: "story",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(
      `/app/webhook-endpoints/${id}?done=endpoint-options-changed`,
    );
    expect(await endpointRow(id)).toMatchObject({ rateLimitPerSecond: 12, ordering: "story" });
    const shown = await owner.get(`/app/webhook-endpoints/${id}/options`);
    expect(shown.text).toMatch(/value="12"/);
    // Emptied: no rate of its own again.
    await owner.post(`/app/webhook-endpoints/${id}/options`, {
      rate_limit_per_second: "",
      ordering: "none",
    });
    expect(await endpointRow(id)).toMatchObject({ rateLimitPerSecond: null, ordering: "none" });
    const events = await db().select().from(auditEvents).where(eq(auditEvents.subjectId, id));
    const updates = events.filter((event) => event.action === "webhook_endpoint.updated");
    expect(updates).toHaveLength(2);
    expect(updates[0]!.actor).toStartWith("person:");

    const viewer = clients.viewer;
    expect((await viewer.get(`/app/webhook-endpoints/${id}/options`)).status).toBe(403);
    const notAllowed = await viewer.post(`/app/webhook-endpoints/${id}/options`, {
      rate_limit_per_second: "1",
    });
    expect(notAllowed.status).toBe(403);
    expect(await endpointRow(id)).toMatchObject({ rateLimitPerSecond: null });
  });

  test("the form's authentication: a reserved header is refused beside it; a bearer token is sealed", async () => {
    const owner = clients.owner;
    await owner.get("/app/orgs/hooks-org/webhook-endpoints");
    const reserved = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/authed"),
      events: "story.published",
      auth_type: "headers",
      auth_headers: "X-Api-Key: k\nwebhook-signature: forged",
    });
    expect(reserved.status).toBe(422);
    expect(reserved.text).toMatch(/id="auth-error">webhook-signature is set by the service/);
    const missing = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/authed"),
      events: "story.published",
      auth_type: "bearer",
    });
    expect(missing.status).toBe(422);
    expect(await endpointCount()).toBe(0);

    const added = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/authed"),
      events: "story.published",
      auth_type: "bearer",
      auth_token: "tok-from-the-form",
    });
    expect(added.status).toBe(303);
    const [row] = await db().select().from(webhookEndpoints);
    expect(row!.authType).toBe("bearer");
    expect(row!.authCiphertext).not.toContain("tok-from-the-form");
    const page = await owner.get(`/app/webhook-endpoints/${row!.id}`);
    expect(page.text).toContain("A bearer token");
    expect(page.text).not.toContain("tok-from-the-form");
  });

  test("an endpoint's page: its delivery log and the last 24 hours by outcome", async () => {
    const id = await adminEndpoint("hooks-org", "/logged");
    const organizationId = (await endpointRow(id))!.organizationId;
    const now = Date.now();
    const delivery = (status: "delivered" | "pending" | "failed", hoursAgo: number) => ({
      id: newId(),
      organizationId,
      endpointId: id,
      eventId: newId(),
      eventType: "story.published" as const,
      storyId: newId(),
      eventCreatedAt: new Date(now - hoursAgo * HOUR),
      status,
      attempts: status === "pending" ? 1 : 3,
      lastStatusCode: status === "delivered" ? 200 : 500,
      lastError: status === "delivered" ? null : "http_500",
      nextAttemptAt: status === "pending" ? new Date(now + HOUR) : null,
      createdAt: new Date(now - hoursAgo * HOUR),
    });
    await db()
      .insert(webhookDeliveries)
      .values([
        delivery("delivered", 0),
        delivery("delivered", 0),
        delivery("failed", 0),
        delivery("pending", 3),
        delivery("delivered", 30),
      ]);
    const page = await clients.admin.get(`/app/webhook-endpoints/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("In the last 24 hours: 2 delivered, 1 pending, 1 failed.");
    expect(page.text).toContain('role="img"');
    expect(page.text).toContain("http_500");
    const rows = [...page.text.matchAll(/<tr><th scope="row">.*?<\/tr>/gs)].map((m) =>
      [...m[0].matchAll(/<td>(\d+)<\/td>/g)].map((c) => Number(c[1])),
    );
    expect(rows).toHaveLength(24);
    expect(rows.at(-1)).toEqual([2, 0, 1]);
    expect(rows.at(-4)).toEqual([0, 1, 0]);
  });

  test("delete asks first, then the endpoint and its log are gone, audited with the person", async () => {
    const id = await adminEndpoint("hooks-org", "/deleted");
    const admin = clients.admin;
    const confirm = await admin.get(`/app/webhook-endpoints/${id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("This cannot be undone.");
    const deleted = await admin.post(`/app/webhook-endpoints/${id}/delete`, { confirm: "yes" });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe(
      "/app/orgs/hooks-org/webhook-endpoints?done=endpoint-deleted",
    );
    expect(await endpointRow(id)).toBeUndefined();
    const events = await db().select().from(auditEvents).where(eq(auditEvents.subjectId, id));
    const deletion = events.find((event) => event.action === "webhook_endpoint.deleted");
    expect(deletion?.actor).toStartWith("person:");
  });

  test("the audit log names an endpoint by its URL, linked to its page", async () => {
    const id = await adminEndpoint("hooks-org", "/named");
    const owner = clients.owner;
    await owner.get(`/app/webhook-endpoints/${id}`);
    expect((await owner.post(`/app/webhook-endpoints/${id}/disable`)).status).toBe(303);
    const audit = await owner.get("/app/orgs/hooks-org/audit");
    expect(audit.text).toContain(
      `<a href="/app/webhook-endpoints/${id}">${receiver.url("/named")}</a>`,
    );
  });

  test("at 13 hours every change waits for a new code and comes back to its page", async () => {
    const id = await adminEndpoint("hooks-org", "/late");
    const owner = await h.signedIn(org.members.owner);
    for (let hours = 0; hours < 13; hours += 6.5) {
      h.clock.advance(6.5 * HOUR);
      for (const client of Object.values(clients)) await client.get("/app/");
      await owner.get("/app/");
    }
    await owner.get(`/app/webhook-endpoints/${id}`);
    const back = encodeURIComponent(`/app/webhook-endpoints/${id}`);
    for (const action of ["test", "disable", "enable"]) {
      const answer = await owner.post(`/app/webhook-endpoints/${id}/${action}`);
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(`/app/sign-in/fresh?return_to=${back}`);
    }
    const deleting = await owner.post(`/app/webhook-endpoints/${id}/delete`);
    expect(deleting.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent(`/app/webhook-endpoints/${id}/delete`)}`,
    );
    const adding = await owner.post("/app/orgs/hooks-org/webhook-endpoints", {
      url: receiver.url("/late-added"),
      events: "story.published",
    });
    expect(adding.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent("/app/orgs/hooks-org/webhook-endpoints")}`,
    );
    expect((await endpointRow(id))!.status).toBe("enabled");
    await Bun.sleep(200);
    expect(receiver.at("/late")).toEqual([]);
  });
});
