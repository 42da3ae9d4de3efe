import { afterAll, beforeAll, expect, test } from "bun:test";
import { assets, storyVersions } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "../../services/workspace/test/support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * An editor in Chromium: writes a story (the slug follows the title), adds a heading and an
 * image of the organization without a round trip, moves the heading up with the keyboard (and
 * blocks by their drag handles),
 * creates the story, previews it on the organization's newsroom (public-read's template, the
 * image marked as not cleared) and submits it; then the same form without JavaScript, where
 * adding a block is a post. Every page is checked with axe-core, the editor at 390 px too.
 */
describeInBrowser("the editors' desk in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const imageUrl = "https://cdn.example.com/desk/room.jpg";
  let storyId = "";

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "desk-co", 0);
    const orgRow = await h.admin("GET", "/orgs/desk-co");
    await h.runtime.database.db.insert(assets).values({
      id: newId(),
      organizationId: orgRow.body.id,
      url: imageUrl,
      alt: "The meeting room",
      cleared: false,
    });
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no other script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  /** The blocks' legends, without the drag handle's mark. */
  const legends = async (p: Page) =>
    (await p.locator("fieldset[data-block] legend").allTextContents()).map((text) =>
      text.replace("⠿", ""),
    );

  test("write a story with blocks, reordered by keyboard, without a round trip", async () => {
    await signInAs(page, h, org.members.editor);
    await page.goto("/app/orgs/desk-co/stories");
    await expectAccessible(page);
    await page.getByRole("link", { name: "New story" }).click();
    await page.waitForURL("**/app/orgs/desk-co/stories/new");
    await expectAccessible(page);

    await page.getByLabel("Title").fill("Our new meeting room");
    expect(await page.getByLabel("Address (slug)").inputValue()).toBe("our-new-meeting-room");
    await page.getByLabel("Text").fill("We built a *room*.");

    const url = page.url();
    await page.getByLabel("New block").selectOption("heading");
    await page.getByRole("button", { name: "Add the block" }).click();
    expect(page.url()).toBe(url);
    // The new block's first field has the focus.
    await page.keyboard.type("The room");
    await page.getByLabel("New block").selectOption("image");
    await page.getByRole("button", { name: "Add the block" }).click();
    await page
      .getByLabel("Image of the organization")
      .selectOption({ label: "The meeting room (not cleared yet)" });
    await page.getByLabel("Caption (optional)").fill("Ready for *you*");
    expect(await legends(page)).toEqual([
      "Block 1: Paragraph",
      "Block 2: Heading",
      "Block 3: Image",
    ]);

    // Alt+Arrow Up on the heading's field moves the block; the field keeps the focus.
    await page.getByLabel("Heading", { exact: true }).focus();
    await page.keyboard.press("Alt+ArrowUp");
    expect(await legends(page)).toEqual([
      "Block 1: Heading",
      "Block 2: Paragraph",
      "Block 3: Image",
    ]);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe(
      "block-0-text",
    );
    // Dragging a block by its handle onto another (the drag events a browser sends) moves it.
    const drag = (from: number, to: number) =>
      page.evaluate(
        ([a, b]) => {
          const blocks = document.querySelectorAll("fieldset[data-block]");
          const handle = blocks[a!]!.querySelector("[data-handle]")!;
          const target = blocks[b!]!.querySelector("legend")!;
          const data = new DataTransfer();
          const fire = (on: Element, type: string) =>
            on.dispatchEvent(
              new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }),
            );
          fire(handle, "dragstart");
          fire(target, "dragover");
          fire(target, "drop");
          fire(handle, "dragend");
        },
        [from, to],
      );
    expect(await page.locator("[data-handle][draggable=true]").count()).toBe(3);
    await drag(2, 0);
    expect(await legends(page)).toEqual([
      "Block 1: Image",
      "Block 2: Heading",
      "Block 3: Paragraph",
    ]);
    await drag(0, 2);
    expect(await legends(page)).toEqual([
      "Block 1: Heading",
      "Block 2: Paragraph",
      "Block 3: Image",
    ]);
    await expectAccessible(page);

    // At a phone's width the form fits.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole("button", { name: "Create the story" }).click();
    await page.waitForURL(/\/app\/stories\/[0-9a-f-]{36}\/edit\?done=created$/);
    storyId = /stories\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await expectAccessible(page);
    const story = await h.admin("GET", `/stories/${storyId}`);
    expect(story.body.slug).toBe("our-new-meeting-room");
    expect(story.body.status).toBe("draft");
    const [version] = await h.runtime.database.db
      .select()
      .from(storyVersions)
      .where(eq(storyVersions.storyId, storyId));
    expect(version!.body.map((block) => block.type)).toEqual(["heading", "paragraph", "image"]);
    expect(version!.body[1]).toEqual({ type: "paragraph", text: "We built a *room*." });
  }, 60_000);

  test("preview on the organization's newsroom, then submit for review", async () => {
    await page.getByRole("link", { name: "On Org desk-co" }).click();
    await page.waitForURL(`**/app/stories/${storyId}/versions/1/preview`);
    expect(await page.getByText("Preview of version 1 (draft)").count()).toBe(1);
    expect(await page.locator("h1").textContent()).toBe("Our new meeting room");
    expect(await page.locator("main h2").first().textContent()).toBe("The room");
    expect(await page.locator(`img[src="${imageUrl}"]`).count()).toBe(1);
    expect(await page.getByText("Not cleared:").count()).toBe(1);
    await expectAccessible(page);

    await page.goto(`/app/stories/${storyId}/edit`);
    await page.getByRole("button", { name: "Submit for review" }).click();
    await page.waitForURL(`**/app/stories/${storyId}?done=submitted`);
    await expectAccessible(page);
    expect((await h.admin("GET", `/stories/${storyId}`)).body.status).toBe("review_required");
  }, 60_000);

  test("without JavaScript, adding and removing a block are posts that save nothing", async () => {
    const plain = await browser.newContext({
      baseURL: h.url,
      bypassCSP: true,
      javaScriptEnabled: false,
    });
    try {
      const noScript = await plain.newPage();
      await signInAs(noScript, h, org.members.editor);
      await noScript.goto("/app/orgs/desk-co/stories/new");
      await noScript.getByLabel("Title").fill("Plain form");
      await noScript.getByLabel("New block").selectOption("quote");
      await noScript.getByRole("button", { name: "Add the block" }).click();
      await noScript.waitForLoadState();
      expect(await legends(noScript)).toEqual(["Block 1: Paragraph", "Block 2: Quote"]);
      expect(await noScript.getByLabel("Title").inputValue()).toBe("Plain form");
      await noScript.getByRole("button", { name: "Remove Block 1: Paragraph" }).click();
      await noScript.waitForLoadState();
      await noScript.getByRole("button", { name: "Remove the block" }).click();
      await noScript.waitForLoadState();
      expect(await legends(noScript)).toEqual(["Block 1: Quote"]);
      const listed = await h.admin("GET", "/orgs/desk-co/stories");
      expect(listed.body.data.map((s: { title: string }) => s.title)).not.toContain("Plain form");
    } finally {
      await plain.close();
    }
  }, 60_000);
});
