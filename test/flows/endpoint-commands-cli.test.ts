import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { cliAgainst } from "../../services/workspace/test/support/cli.ts";
import { workspaceHarness } from "../../services/workspace/test/support/harness.ts";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

/**
 * A flow across the workspace and webhooks: `npm run admin` endpoint commands go to the
 * workspace's internal API, which sends them to the webhooks service; `endpoint-test` says
 * whether the receiver accepted the test event, with status and duration.
 */
let h: Harness;
let cli: ReturnType<typeof cliAgainst>;
const seen: string[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    const path = new URL(request.url).pathname;
    seen.push(`${path} ${JSON.parse(await request.text()).type}`);
    return new Response(null, { status: path === "/broken" ? 500 : 204 });
  },
});
const at = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

beforeAll(async () => {
  h = await endpointsHarness({ allowInsecureTargets: true });
  cli = cliAgainst(h);
  await h.call("POST", "/orgs", { slug: "tested", name: "Tested" });
});
afterAll(async () => {
  cli.stop();
  receiver.stop(true);
  await h.close();
});

async function endpointAt(path: string): Promise<string> {
  const created = await cli.admin(
    "endpoint-create",
    "tested",
    at(path),
    "--events",
    "story.published",
  );
  expect(created.code).toBe(0);
  return created.json().id;
}

describe("npm run admin -- endpoint-test", () => {
  test("an accepting receiver: accepted, its status and the time it took", async () => {
    const id = await endpointAt("/ok");
    const run = await cli.admin("endpoint-test", id);
    expect(run.code).toBe(0);
    const answer = run.json();
    expect(answer).toMatchObject({ object: "webhook_endpoint", id });
    expect(answer.test).toMatchObject({ status: "accepted", status_code: 204, error: null });
    expect(answer.test.duration_ms).toBeGreaterThanOrEqual(0);
    expect(run.stderr).toMatch(/test event accepted: HTTP 204 in \d+ ms/);
    expect(seen).toContain("/ok webhook.test");
  });

  test("a failing receiver: failed with its status, exit code 1", async () => {
    const id = await endpointAt("/broken");
    const run = await cli.admin("endpoint-test", id);
    expect(run.code).toBe(1);
    expect(run.json().test).toMatchObject({
      status: "failed",
      status_code: 500,
      error: "receiver answered 500",
    });
    expect(run.stderr).toContain("test event failed: HTTP 500");
  });

  test("without ?wait=true the answer carries the outcome too: the call is synchronous", async () => {
    const id = await endpointAt("/ok");
    const answer = await h.call("POST", `/webhook_endpoints/${id}/test`);
    expect(answer.status).toBe(200);
    expect(answer.body.test).toMatchObject({ status: "accepted", status_code: 204 });
  });
});

describe("npm run admin -- endpoint and delivery lists", () => {
  test("the list shows the endpoint without its secret; an endpoint with no deliveries", async () => {
    const created = await cli.admin(
      "endpoint-create",
      "tested",
      "http://127.0.0.1:9/hook",
      "--events",
      "story.published",
    );
    expect(created.code).toBe(0);
    const endpoints = (await cli.admin("endpoint-list", "tested")).json();
    expect(endpoints.data.map((e: { id: string }) => e.id)).toContain(created.json().id);
    expect(JSON.stringify(endpoints)).not.toContain(created.json().secret);
    const deliveries = (await cli.admin("delivery-list", created.json().id)).json();
    expect(deliveries).toMatchObject({ object: "list", data: [] });
    // The workspace audits the owner action once the webhooks service made it.
    const audit = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.subjectId, created.json().id));
    expect(audit.map((row) => row.action)).toEqual(["webhook_endpoint.created"]);
  });
});

describe("npm run admin -- endpoint-create with a rate and story order", () => {
  test("the flags reach the record through the workspace's internal API; out of range is refused naming the field", async () => {
    const created = await cli.admin(
      "endpoint-create",
      "tested",
      "http://127.0.0.1:9/paced",
      "--events",
      "story.published",
      "--rate-limit-per-second",
      "10",
      "--ordering",
      "story",
    );
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ rate_limit_per_second: 10, ordering: "story" });
    const listed = (await cli.admin("endpoint-list", "tested"))
      .json()
      .data.find((e: { id: string }) => e.id === created.json().id);
    expect(listed).toMatchObject({ rate_limit_per_second: 10, ordering: "story" });

    const updated = await cli.admin(
      "endpoint-update",
      created.json().id,
      "--rate-limit-per-second",
      "3",
      "--ordering",
      "none",
    );
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ rate_limit_per_second: 3, ordering: "none" });
    const audit = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.subjectId, created.json().id));
    expect(audit.map((row) => row.action)).toContain("webhook_endpoint.updated");

    const unknownOrder = await cli.admin(
      "endpoint-create",
      "tested",
      "http://127.0.0.1:9/paced",
      "--events",
      "story.published",
      "--ordering",
      "sideways",
    );
    expect(unknownOrder.code).toBe(2);
    expect(unknownOrder.stderr).toContain("allowed values: none, story");
    const tooFast = await h.call("POST", "/orgs/tested/webhook_endpoints", {
      url: "http://127.0.0.1:9/paced",
      events: ["story.published"],
      rate_limit_per_second: 1001,
    });
    expect(tooFast.status).toBe(422);
    expect(tooFast.body.error.code).toBe("validation_failed");
    expect(tooFast.body.error.fields.map((f: { field: string }) => f.field)).toContain(
      "rate_limit_per_second",
    );
  });
});

describe("the webhooks service unreachable", () => {
  test("an endpoint command answers 503 and nothing is audited", async () => {
    const alone = await workspaceHarness();
    try {
      const org = await alone.call("POST", "/orgs", { slug: "alone", name: "Alone" });
      const refused = await alone.call("POST", "/orgs/alone/webhook_endpoints", {
        url: "https://hooks.example.com/in",
        events: ["story.published"],
      });
      expect(refused.status).toBe(503);
      const audit = await alone.database.db
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.organizationId, org.body.id));
      expect(audit.filter((row) => row.action.startsWith("webhook_"))).toEqual([]);
    } finally {
      await alone.close();
    }
  });
});
