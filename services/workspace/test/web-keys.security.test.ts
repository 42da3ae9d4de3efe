import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_LIVE_KEYS_PER_ORGANIZATION } from "@newsroom/shared/api-keys";
import {
  apiKeys,
  auditEvents,
  MEMBER_ROLES,
  type MemberRole,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { eq, isNull } from "drizzle-orm";
import { readmeTable } from "./support/permission-table.ts";
import {
  type Answer,
  orgWithMembers,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * API keys in the web app: who may list, create and revoke them (cases from docs/permissions.md's
 * "Workspace permissions" table), another organization's keys (404, nothing changed), the key
 * shown once, the live-key limit, and the audit naming the person. That the key works on the
 * client API at once and stops at its revocation is a flow across services:
 * test/flows/workspace-web-keys.test.ts.
 */
const table = readmeTable();

describe("API keys in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const clients = {} as Record<MemberRole, WebClient>;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "keys-org", 0);
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
  }, 120_000);
  afterAll(() => h?.close());

  const db = () => h.runtime.database.db;
  const liveKeys = async () =>
    db()
      .select()
      .from(apiKeys)
      .where(isNull(apiKeys.revokedAt))
      .then((rows) => rows.length);
  const keyById = async (id: string) =>
    (await db().select().from(apiKeys).where(eq(apiKeys.id, id)))[0]!;
  const adminKey = async (slug = "keys-org") =>
    (
      await h.admin("POST", `/orgs/${slug}/keys`, {
        environment: "test",
        scopes: ["stories:read"],
        lifetime_days: 30,
      })
    ).body.id as string;
  /** Posts the creation form; a creation answers 303 to the page that shows the key, followed. */
  const createKey = async (client: WebClient, path = "/app/orgs/keys-org/keys") => {
    const posted = await client.post(path, {
      environment: "test",
      scopes: "stories:read",
      lifetime_days: "90",
    });
    if (posted.status !== 303) return posted;
    const location = posted.headers.get("location")!;
    expect(location).toMatch(/^\/app\/keys\/[0-9a-f-]{36}\/created$/);
    return client.get(location);
  };
  const secretOf = (answer: Answer) =>
    /value="(armk_test_[A-Za-z0-9_-]{43})"/.exec(answer.text)?.[1];

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("key.create")![role];
    test(`${role}: key.create is ${allowed ? "allowed" : "403"}`, async () => {
      const client = clients[role];
      const page = await client.get("/app/orgs/keys-org/keys");
      expect(page.status).toBe(allowed ? 200 : 403);
      const before = await liveKeys();
      const answer = await createKey(client);
      if (allowed) {
        expect(answer.status).toBe(200);
        expect(answer.text).toContain("It will not be shown again");
        expect(secretOf(answer)).toBeDefined();
        expect(answer.headers.get("cache-control")).toBe("no-store");
        // The copy button's script, from the app itself, and only on the page with the secret.
        expect(answer.headers.get("content-security-policy")).toContain("script-src 'self'");
        expect(page.headers.get("content-security-policy")).not.toContain("script-src");
        expect(await liveKeys()).toBe(before + 1);
      } else {
        expect(answer.status).toBe(403);
        expect(await liveKeys()).toBe(before);
      }
    });
  }

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("key.revoke")![role];
    test(`${role}: key.revoke is ${allowed ? "allowed" : "403"}`, async () => {
      const client = clients[role];
      const id = await adminKey();
      const confirm = await client.get(`/app/keys/${id}/revoke`);
      expect(confirm.status).toBe(allowed ? 200 : 403);
      if (allowed) expect(confirm.text).toContain("stops working at once");
      else await client.get("/app/");
      const answer = await client.post(`/app/keys/${id}/revoke`);
      expect(answer.status).toBe(allowed ? 303 : 403);
      expect((await keyById(id)).revokedAt !== null).toBe(allowed);
    });
  }

  test("the key is shown once: the list shows its last four only; revoking it returns to the list", async () => {
    const owner = clients.owner;
    await owner.get("/app/orgs/keys-org/keys");
    const created = await createKey(owner);
    const secret = secretOf(created)!;
    const list = await owner.get("/app/orgs/keys-org/keys");
    expect(list.text).not.toContain(secret);
    expect(list.text).toContain(`armk_test_…${secret.slice(-4)}`);
    const [row] = await db()
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.lastFour, secret.slice(-4)));
    await owner.get(`/app/keys/${row!.id}/revoke`);
    const revoked = await owner.post(`/app/keys/${row!.id}/revoke`);
    expect(revoked.headers.get("location")).toBe("/app/orgs/keys-org/keys?done=key-revoked");
    expect((await keyById(row!.id)).revokedAt).not.toBeNull();
  });

  test("a reload of the key's page, or another session, shows the key no more", async () => {
    const owner = clients.owner;
    await owner.get("/app/orgs/keys-org/keys");
    const posted = await owner.post("/app/orgs/keys-org/keys", {
      environment: "test",
      scopes: "stories:read",
      lifetime_days: "90",
    });
    expect(posted.status).toBe(303);
    const shownAt = posted.headers.get("location")!;
    const handed = owner.cookies.get("nr_shown_once")!;
    expect(handed).toBeDefined();
    // The sealed cookie does not carry the key in the clear.
    expect(handed).not.toContain("armk_");
    // Another person's session, with the same cookie, sees no key.
    const other = await h.signedIn(org.members.admin);
    other.cookies.set("nr_shown_once", handed);
    const elsewhere = await other.get(shownAt);
    expect(elsewhere.status).toBe(200);
    expect(secretOf(elsewhere)).toBeUndefined();
    const keysBefore = await liveKeys();
    const first = await owner.get(shownAt);
    expect(secretOf(first)).toBeDefined();
    expect(owner.cookies.has("nr_shown_once")).toBe(false);
    const again = await owner.get(shownAt);
    expect(again.status).toBe(200);
    expect(secretOf(again)).toBeUndefined();
    expect(again.text).toContain("was shown once, when it was made, and is not shown again");
    expect(await liveKeys()).toBe(keysBefore);
  });

  test("creation and revocation are audited with the person", async () => {
    const [admin] = await db()
      .select()
      .from(workspacePeople)
      .where(eq(workspacePeople.email, org.members.admin));
    const actions = await db()
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.actor, `person:${admin!.id}`));
    expect(actions.map((row) => row.action).sort()).toEqual(["api_key.created", "api_key.revoked"]);
  });

  test("another organization's owner: 404 for its keys page, creation and revocation; nothing changes", async () => {
    const other = await orgWithMembers(h, "keys-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    const id = await adminKey();
    const before = await liveKeys();
    expect((await stranger.get("/app/orgs/keys-org/keys")).status).toBe(404);
    expect((await stranger.get(`/app/keys/${id}/revoke`)).status).toBe(404);
    await stranger.get("/app/orgs/keys-other/keys");
    expect((await createKey(stranger)).status).toBe(404);
    expect((await stranger.post(`/app/keys/${id}/revoke`)).status).toBe(404);
    expect(await liveKeys()).toBe(before);
    expect((await keyById(id)).revokedAt).toBeNull();
  });

  test("only the deployment's environment is offered, and a live key is refused here", async () => {
    const owner = clients.owner;
    const page = await owner.get("/app/orgs/keys-org/keys");
    expect(page.text).toContain('name="environment" value="test"');
    expect(page.text).not.toContain('value="live"');
    const before = await liveKeys();
    const live = await owner.post("/app/orgs/keys-org/keys", {
      environment: "live",
      scopes: "stories:read",
      lifetime_days: "90",
    });
    expect(live.status).toBe(422);
    expect(live.text).toContain("accepts test keys only");
    const noScope = await owner.post("/app/orgs/keys-org/keys", {
      environment: "test",
      lifetime_days: "90",
    });
    expect(noScope.status).toBe(422);
    expect(noScope.text).toContain("Choose at least one scope.");
    expect(await liveKeys()).toBe(before);
  });

  test(`the ${MAX_LIVE_KEYS_PER_ORGANIZATION}-live-key limit is explained on the page and in the refusal`, async () => {
    const full = await orgWithMembers(h, "keys-full", 0);
    const owner = await h.signedIn(full.members.owner);
    for (let i = 0; i < MAX_LIVE_KEYS_PER_ORGANIZATION; i++) await adminKey("keys-full");
    const page = await owner.get("/app/orgs/keys-full/keys");
    expect(page.text).toContain(`at most\n${MAX_LIVE_KEYS_PER_ORGANIZATION} keys in use`);
    const refused = await createKey(owner, "/app/orgs/keys-full/keys");
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(
      `at most ${MAX_LIVE_KEYS_PER_ORGANIZATION} keys in use, test and live keys alike (every key neither revoked nor expired counts). Revoke one first. Nothing was created.`,
    );
  });
});
