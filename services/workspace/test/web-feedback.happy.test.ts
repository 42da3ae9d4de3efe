import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithMembers, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * Every action's redirect names what it did (`?done=`) and the page it lands on says so, through
 * the layout: approving, rejecting and revoking a key among them. Only known messages show.
 */
describe("feedback after actions in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let owner: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "feedback-org", 2);
    owner = await h.signedIn(org.members.owner);
  }, 120_000);
  afterAll(() => h?.close());

  /** Follows the redirect of a post and gives the page's status notice. */
  async function landing(answer: { status: number; headers: Headers }) {
    expect(answer.status).toBe(303);
    const page = await owner.get(answer.headers.get("location")!);
    expect(page.status).toBe(200);
    return /<div class="notice" role="status"><p>([^<]*)<\/p>/.exec(page.text)?.[1];
  }

  test("approving and rejecting a story say so on the story's page", async () => {
    const [first, second] = org.storyIds as [string, string];
    await owner.get(`/app/stories/${first}`);
    expect(await landing(await owner.post(`/app/stories/${first}/approve`))).toBe(
      "The story was approved: it may now be published.",
    );
    await owner.get(`/app/stories/${second}`);
    const rejected = await owner.post(`/app/stories/${second}/reject`, { note: "Shorter." });
    expect(rejected.headers.get("location")).toBe(`/app/stories/${second}?done=rejected`);
    expect(await landing(rejected)).toBe("The story was rejected: its author sees your note.");
  });

  test("revoking a key says so on the keys page", async () => {
    const created = await h.admin("POST", `/orgs/${org.slug}/keys`, {
      environment: "test",
      scopes: ["stories:read"],
      lifetime_days: 30,
    });
    expect(created.status).toBe(201);
    await owner.get(`/app/keys/${created.body.id}/revoke`);
    expect(await landing(await owner.post(`/app/keys/${created.body.id}/revoke`))).toBe(
      "The key was revoked: requests made with it are refused from now on.",
    );
  });

  test("an unknown message shows nothing", async () => {
    const page = await owner.get(`/app/orgs/${org.slug}?done=%3Cscript%3E`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('class="notice"');
    expect(page.text).not.toContain("<script>");
  });
});
