import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiKeys } from "@newsroom/shared/db/schema";
import { count } from "drizzle-orm";
import { isFreshSignIn, safeReturnTo } from "../src/web/fresh-sign-in.ts";
import {
  orgWithMembers,
  unique,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * The spec's rule: keys and webhook endpoints are managed "after a two-step sign-in code from the
 * last 12 hours". The clock is the test's: at 11 hours an action works; at 13 hours it is sent to
 * the code page, and the code brings the person back to the page, where the action works.
 */
const HOUR = 3_600_000;

describe("safeReturnTo keeps the person inside the app", () => {
  const cases: [string | null, string][] = [
    ["/app/orgs/acme/keys", "/app/orgs/acme/keys"],
    ["/app/keys/1/revoke?x=1", "/app/keys/1/revoke?x=1"],
    [null, "/app/"],
    ["https://evil.example/app/", "/app/"],
    ["//evil.example/app/", "/app/"],
    ["/app/\\evil.example", "/app/"],
    ["/\\evil.example/app/", "/app/"],
    ["/app/\t/evil", "/app/"],
    ["/app/../internal/v1/orgs", "/app/"],
    ["/app/%2e%2e/internal", "/app/"],
    ["/internal/v1/orgs", "/app/"],
    ["javascript:alert(1)", "/app/"],
    ["/app", "/app/"],
  ];
  for (const [raw, expected] of cases) {
    test(`${JSON.stringify(raw)} → ${expected}`, () => expect(safeReturnTo(raw)).toBe(expected));
  }

  test("fresh means proved less than 12 hours ago", () => {
    const now = new Date("2026-01-01T12:00:00Z");
    const at = (hours: number) => ({ freshAt: new Date(now.getTime() - hours * HOUR) });
    expect(isFreshSignIn(at(11.99), now)).toBe(true);
    expect(isFreshSignIn(at(12), now)).toBe(false);
  });
});

describe("the 12-hour rule in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let owner: WebClient;
  const keysPath = "/app/orgs/fresh-org/keys";
  /** A created key's page: the creation's 303 leads there (a stale session's, to a code). */
  const CREATED = /^\/app\/keys\/[0-9a-f-]{36}\/created$/;
  const createKey = (client = owner) =>
    client.post(keysPath, { environment: "test", scopes: "stories:read", lifetime_days: "30" });
  const keyCount = async () =>
    (await h.runtime.database.db.select({ n: count() }).from(apiKeys))[0]!.n;
  /** Moves the clock on without letting the session lapse: it ends after 12 idle hours. */
  const passHours = async (hours: number, clients = [owner]) => {
    for (let left = hours; left > 0; left -= Math.min(left, 6)) {
      h.clock.advance(Math.min(left, 6) * HOUR);
      for (const client of clients) expect((await client.get(keysPath)).status).toBe(200);
    }
  };

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "fresh-org", 0);
    owner = await h.signedIn(org.members.owner);
  }, 120_000);
  afterAll(() => h?.close());

  test("at 11 hours the action works; at 13 hours it waits for a new code, then works", async () => {
    await passHours(11);
    const early = await createKey();
    expect(early.headers.get("location")).toMatch(CREATED);
    expect((await owner.get(early.headers.get("location")!)).text).toContain("Your new API key");

    await passHours(2);
    const page = await owner.get(keysPath);
    expect(page.text).toContain("you will be asked for a new one first");
    const before = await keyCount();
    const late = await createKey();
    expect(late.status).toBe(303);
    expect(late.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent(keysPath)}`,
    );
    expect(await keyCount()).toBe(before);

    const codePage = await owner.get(late.headers.get("location")!);
    expect(codePage.status).toBe(200);
    expect(codePage.text).toContain(`value="${keysPath}"`);
    // The emulator stamps emails in whole seconds: wait for a second of our own.
    await Bun.sleep(1_100);
    const since = Date.now();
    const sent = await owner.post("/app/sign-in/fresh/send", { return_to: keysPath });
    expect(sent.status).toBe(303);
    const code = await h.codeFor(org.members.owner, since);

    await owner.get(sent.headers.get("location")!);
    const wrong = await owner.post("/app/sign-in/fresh", {
      code: code === "000000" ? "111111" : "000000",
      return_to: keysPath,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("That code is wrong or has expired.");
    expect((await createKey()).status).toBe(303);

    const right = await owner.post("/app/sign-in/fresh", { code, return_to: keysPath });
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(keysPath);
    // The same session, renewed: no new cookie.
    expect(right.headers.getSetCookie()).toEqual([]);
    expect((await owner.get(keysPath)).text).not.toContain("you will be asked");
    const after = await createKey();
    expect(after.headers.get("location")).toMatch(CREATED);
    expect(await keyCount()).toBe(before + 1);
  });

  test("a return_to outside the app brings the person home, never elsewhere", async () => {
    await owner.get("/app/sign-in/fresh?return_to=https%3A%2F%2Fevil.example%2F");
    await Bun.sleep(1_100);
    const since = Date.now();
    await owner.post("/app/sign-in/fresh/send", { return_to: "https://evil.example/" });
    const code = await h.codeFor(org.members.owner, since);
    const answer = await owner.post("/app/sign-in/fresh", {
      code,
      return_to: "//evil.example/app/",
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/app/");
  });

  test("only the session that entered the code is renewed", async () => {
    const first = await h.signedIn(org.members.admin);
    const second = await h.signedIn(org.members.admin);
    await passHours(13, [first, second]);
    await Bun.sleep(1_100);
    const since = Date.now();
    await first.post("/app/sign-in/fresh/send", { return_to: keysPath });
    const code = await h.codeFor(org.members.admin, since);
    await first.get(`/app/sign-in/fresh?return_to=${encodeURIComponent(keysPath)}`);
    expect((await first.post("/app/sign-in/fresh", { code, return_to: keysPath })).status).toBe(
      303,
    );
    await first.get(keysPath);
    expect((await createKey(first)).headers.get("location")).toMatch(CREATED);
    await second.get(keysPath);
    expect((await createKey(second)).headers.get("location")).toStartWith("/app/sign-in/fresh?");
  });

  test("at 13 hours, giving admin or owner waits for a new code; other roles do not", async () => {
    // An owner of their own (fresh address, so earlier tests' code throttles do not apply).
    const bossEmail = unique("fresh-boss");
    await h.admin("POST", "/orgs/fresh-org/members", { email: bossEmail, role: "owner" });
    const boss = await h.signedIn(bossEmail);
    const membersPath = "/app/orgs/fresh-org/members";
    const codeUrl = `/app/sign-in/fresh?return_to=${encodeURIComponent(membersPath)}`;
    const roleOf = async (email: string) => {
      const list = await h.admin("GET", "/orgs/fresh-org/members");
      const found = list.body.data.find((one: { email: string }) => one.email === email);
      return found ? { id: found.person_id as string, role: found.role as string } : null;
    };
    const setRole = async (email: string, role: string) =>
      boss.post(`${membersPath}/${(await roleOf(email))!.id}/role`, { role });
    const editor = unique("fresh-editor");
    const admin = unique("fresh-admin");
    await h.admin("POST", "/orgs/fresh-org/members", { email: editor, role: "editor" });
    await h.admin("POST", "/orgs/fresh-org/members", { email: admin, role: "admin" });

    await passHours(13, [boss]);
    const page = await boss.get(membersPath);
    expect(page.text).toContain("Giving the admin or owner role needs a sign-in code");

    const newAdmin = unique("fresh-new-admin");
    const newOwner = unique("fresh-new-owner");
    for (const [email, role] of [
      [newAdmin, "admin"],
      [newOwner, "owner"],
    ] as const) {
      const invited = await boss.post(membersPath, { email, role });
      expect(invited.status).toBe(303);
      expect(invited.headers.get("location")).toBe(codeUrl);
      expect(await roleOf(email)).toBeNull();
    }
    for (const [email, role, before] of [
      [editor, "admin", "editor"],
      [editor, "owner", "editor"],
      [admin, "owner", "admin"],
    ] as const) {
      const raised = await setRole(email, role);
      expect(raised.status).toBe(303);
      expect(raised.headers.get("location")).toBe(codeUrl);
      expect((await roleOf(email))!.role).toBe(before);
    }

    // Lesser roles, and lowering, need no new code.
    const viewer = unique("fresh-viewer");
    const invitedViewer = await boss.post(membersPath, { email: viewer, role: "viewer" });
    expect(invitedViewer.headers.get("location")).toBe(`${membersPath}?done=invited`);
    expect((await setRole(editor, "approver")).headers.get("location")).toBe(
      `${membersPath}?done=role-changed`,
    );
    expect((await setRole(admin, "editor")).headers.get("location")).toBe(
      `${membersPath}?done=role-changed`,
    );

    // With a new code, the same changes go through.
    await boss.get(codeUrl);
    await Bun.sleep(1_100);
    const since = Date.now();
    await boss.post("/app/sign-in/fresh/send", { return_to: membersPath });
    const code = await h.codeFor(bossEmail, since);
    await boss.get(codeUrl);
    const right = await boss.post("/app/sign-in/fresh", { code, return_to: membersPath });
    expect(right.headers.get("location")).toBe(membersPath);
    await boss.get(membersPath);
    expect((await boss.post(membersPath, { email: newAdmin, role: "admin" })).status).toBe(303);
    expect((await roleOf(newAdmin))!.role).toBe("admin");
    expect((await setRole(editor, "owner")).status).toBe(303);
    expect((await roleOf(editor))!.role).toBe("owner");
  });

  test("the internal API (ADMIN_TOKEN, no session) still sets any role", async () => {
    const email = unique("fresh-api-owner");
    const added = await h.admin("POST", "/orgs/fresh-org/members", { email, role: "owner" });
    expect(added.status).toBe(201);
    expect(added.body.role).toBe("owner");
  });
});
