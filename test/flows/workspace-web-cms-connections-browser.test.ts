import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eventually } from "@newsroom/shared/testing/eventually";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  startWordPress,
  type WordPressSite,
} from "../../services/webhooks/test/support/wordpress.ts";
import { expectAccessible } from "../../services/workspace/test/support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * The CMS connections page in Chromium, against a real WordPress: an error beside its field, a
 * connection added (its application password nowhere on the page), checked, changed and, after
 * the confirmation, deleted; a published story's page shows the write into the site. Every page
 * passes axe-core and fits 390 px.
 */
describeInBrowser("CMS connections in Chromium", () => {
  let h: WebHarness;
  let wp: WordPressSite;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;

  async function submit(name: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name, exact: true }).first().click(),
    ]);
    return response!.status();
  }

  beforeAll(async () => {
    [h, wp] = await Promise.all([
      webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" }),
      startWordPress(),
    ]);
    org = await orgWithMembers(h, "cmsorg", 1);
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, org.members.owner);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
    await wp?.stop();
  });

  test("add with an error, add, check, publish a story into it, change, delete", async () => {
    await page.goto("/app/orgs/cmsorg");
    await page.getByRole("link", { name: "CMS connections" }).click();
    await page.waitForURL("**/app/orgs/cmsorg/cms-connections");
    await expectAccessible(page);

    await page.getByLabel("Site address").fill("ftp://news.example.com");
    await page.getByLabel("WordPress user name").fill(wp.admin.username);
    await page.getByLabel("Application password").fill(wp.admin.applicationPassword);
    expect(await submit("Add connection")).toBe(422);
    expect(await page.locator("#field-url-error").textContent()).toBeTruthy();
    await expectAccessible(page);

    await page.getByLabel("Site address").fill(wp.url);
    await page.getByLabel("Application password").fill(wp.admin.applicationPassword);
    expect(await submit("Add connection")).toBe(200);
    expect(page.url()).toContain("done=cms-connection-added");
    expect(await page.content()).not.toContain(wp.admin.applicationPassword);
    expect(await page.textContent("main")).toContain(`WordPress: ${wp.url}`);
    await expectAccessible(page);

    expect(await submit("Check connection")).toBe(200);
    expect(await page.textContent("main")).toContain("The connection works");
    await expectAccessible(page);

    const storyId = org.storyIds[0]!;
    await h.admin("POST", `/stories/${storyId}/transitions`, { action: "approve" });
    await h.admin("POST", `/stories/${storyId}/transitions`, { action: "publish" });
    await eventually(
      () => h.admin("GET", `/stories/${storyId}/cms_writes`),
      (answer) => answer.body?.data?.[0]?.status === "done",
      { message: "the story written into WordPress", timeoutMs: 30_000 },
    );
    await page.goto(`/app/stories/${storyId}`);
    const section = page.getByRole("region", { name: "Client sites (CMS)" });
    expect(await section.textContent()).toContain("publish (created)");
    expect(await section.textContent()).toContain("written");
    await expectAccessible(page);

    await page.goto("/app/orgs/cmsorg/cms-connections");
    await page.getByLabel("When a story is unpublished").selectOption("trash");
    expect(await submit("Save")).toBe(200);
    expect(page.url()).toContain("done=cms-connection-changed");
    expect(await page.getByLabel("When a story is unpublished").inputValue()).toBe("trash");

    await page.getByRole("link", { name: "Delete this connection" }).click();
    await page.waitForURL("**/delete");
    await expectAccessible(page);
    expect(await submit("Delete connection")).toBe(200);
    expect(page.url()).toContain("done=cms-connection-deleted");
    expect(await page.textContent("main")).toContain("No connection yet");
  });
});
