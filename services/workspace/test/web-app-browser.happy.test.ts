import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { orgWithMembers, storyInReview, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * A person's day in Chromium: sign in with the emailed code, see the review queue, approve one
 * story and publish it with its button (the page links its public address; unpublishing asks
 * first), reject another (the note is required).
 * Every page is checked with axe-core: no serious or critical violation. That the public newsroom
 * then lists the story is a flow across services: test/flows/workspace-web-publish.test.ts.
 */
/** The forms by what they do: other ways to sign in may share the pages. */
const codeRequest = (page: Page) => page.locator('form[action="/app/sign-in"]');
const codeForm = (page: Page) => page.locator('form[action="/app/sign-in/code"]');

describeInBrowser("the workspace web app in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let changed: string;

  beforeAll(async () => {
    h = await webHarness();
    // The house organization: its newsroom is the public one at /v1/public/newsroom.
    org = await orgWithMembers(h, "armage", 2);
    // A story approved and published once, then changed: its page compares the two versions.
    changed = await storyInReview(h, "armage", "changed-story");
    await h.admin("POST", `/stories/${changed}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    await h.admin("POST", `/stories/${changed}/versions`, {
      title: "Title of changed-story, revised",
      summary: "A summary",
      body: [
        { type: "paragraph", text: "First paragraph." },
        { type: "paragraph", text: "A new paragraph." },
      ],
    });
    await h.admin("POST", `/stories/${changed}/transitions`, { action: "submit" });
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("sign in with the code from the email", async () => {
    await page.goto("/app/sign-in");
    await expectAccessible(page);
    await codeRequest(page).getByLabel("Email address").fill(org.members.approver);
    await codeRequest(page).getByRole("button", { name: "Email me a code" }).click();
    await page.waitForURL("**/app/sign-in/code");
    await expectAccessible(page);

    // A wrong code first: the error sits beside the field.
    await codeForm(page).getByLabel("Email address").fill(org.members.approver);
    await codeForm(page).getByLabel("Six-digit code").fill("000000");
    await codeForm(page).getByRole("button", { name: "Sign in" }).click();
    expect(await page.locator("#field-code-error").textContent()).toBe(
      "That code is wrong or has expired.",
    );
    await expectAccessible(page);

    const code = await h.codeFor(org.members.approver);
    await codeForm(page).getByLabel("Six-digit code").fill(code);
    await codeForm(page).getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/app\/$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your organizations");
    await expectAccessible(page);
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === "nr_session")!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/app" });
  });

  test("the organization, its stories and its review queue", async () => {
    await page.getByRole("link", { name: "Org armage" }).click();
    await page.waitForURL("**/app/orgs/armage");
    await expectAccessible(page);
    await page.getByRole("link", { name: "Stories", exact: true }).click();
    await expectAccessible(page);
    await page.getByRole("link", { name: "Approvals", exact: true }).click();
    await page.waitForURL("**/app/orgs/armage/approvals");
    for (const title of [
      "Title of story-1",
      "Title of story-2",
      "Title of changed-story, revised",
    ]) {
      expect(await page.getByRole("link", { name: title }).count()).toBe(1);
    }
    await expectAccessible(page);
  });

  test("a changed story shows the current version beside the last approved one", async () => {
    await page.goto(`/app/stories/${changed}`);
    await expectAccessible(page);
    const approved = page.getByRole("region", { name: "Last approved (version 1)" });
    const current = page.getByRole("region", { name: "Current (version 2)" });
    expect(await approved.locator("del").allTextContents()).toEqual([
      "− Removed: Title: Title of changed-story",
    ]);
    expect(await current.locator("ins").allTextContents()).toEqual([
      "+ Added: Title: Title of changed-story, revised",
      "+ Added: A new paragraph.",
    ]);
  });

  test("approve a story, publish it with the button: the page links its public address", async () => {
    const [first] = org.storyIds;
    await page.goto("/app/orgs/armage/approvals");
    await page.getByRole("link", { name: "Title of story-1" }).click();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL(`**/app/stories/${first}?done=approved`);
    expect(await page.locator(".status").first().textContent()).toBe("approved");
    expect(await page.getByRole("status").textContent()).toContain("The story was approved");
    const decidedBy = page.getByRole("cell", { name: `${org.members.approver} (approver)` });
    expect(await decidedBy.count()).toBe(1);
    await expectAccessible(page);

    await page.getByRole("button", { name: "Publish" }).click();
    await page.waitForURL(`**/app/stories/${first}?done=published`);
    expect(await page.locator(".status").first().textContent()).toBe("published");
    expect(await page.getByRole("status").textContent()).toContain("The story is published.");
    const link = page.getByRole("link", { name: `${h.url}/newsroom/story-1` });
    expect(await link.count()).toBe(1);
    await expectAccessible(page);

    // Unpublishing asks first, on a page of its own; Cancel leaves the story published.
    await page.getByRole("button", { name: "Unpublish" }).click();
    await page.waitForURL(`**/app/stories/${first}/unpublish`);
    await expectAccessible(page);
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL(`**/app/stories/${first}`);
    expect(await page.locator(".status").first().textContent()).toBe("published");
  });

  test("reject a story: an empty note is refused beside the field, then a note rejects it", async () => {
    const second = org.storyIds[1]!;
    await page.goto(`/app/stories/${second}`);
    await page.getByRole("button", { name: "Reject" }).click();
    await page.locator("#field-note-error").waitFor();
    expect(await page.locator("#field-note").getAttribute("aria-describedby")).toBe(
      "field-note-error",
    );
    expect(await page.locator(".status").first().textContent()).toBe("review required");
    await expectAccessible(page);

    await page.getByLabel("Note to the author (required to reject)").fill("Add a source, please.");
    await page.getByRole("button", { name: "Reject" }).click();
    await page.waitForURL(`**/app/stories/${second}?done=rejected`);
    expect(await page.locator(".status").first().textContent()).toBe("rejected");
    expect(await page.getByRole("status").textContent()).toContain("The story was rejected");
    expect(await page.getByRole("cell", { name: "Add a source, please." }).count()).toBe(1);
  });

  test("the confirmation and error pages are accessible too", async () => {
    await page.goto("/app/sign-out-everywhere");
    await expectAccessible(page);
    await page.goto("/app/orgs/no-such-org");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Not found");
    await expectAccessible(page);
  });

  test("sign out", async () => {
    await page.goto("/app/");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/app/sign-in?done=signed-out");
    expect(await page.getByRole("status").textContent()).toContain("You are signed out.");
    await page.goto("/app/orgs/armage");
    await page.waitForURL("**/app/sign-in");
  });
});
