import { afterAll, beforeAll, expect, test } from "bun:test";
import { organizations } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { serviceEntry } from "@newsroom/shared/service";
import { expectAccessible } from "@newsroom/shared/testing/accessibility";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { buildWorld, type World } from "./support/world.ts";

/**
 * A client's newsroom on its own hostname, and the house newsroom, as Chromium renders them:
 * requests to the two hosts are answered in-process (the Host header as sent), nothing leaves
 * the machine.
 */
describeInBrowser("newsroom pages by hostname in Chromium", () => {
  let world: World;
  let browser: Browser;
  const HOUSE = "http://localhost";
  const CLIENT = "https://news.client.example";

  beforeAll(async () => {
    world = await buildWorld();
    // The client's newsletter is on: its sign-up form is on its pages, and checked too.
    await world.database.db
      .update(organizations)
      .set({ newsletterEnabled: true })
      .where(eq(organizations.id, world.client.id));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  async function openPage(): Promise<Page> {
    const handle = edge(serviceEntry(world.service), { trustedProxies: "" });
    const context = await browser.newContext({ bypassCSP: true });
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      if (!url.startsWith(`${HOUSE}/`) && !url.startsWith(`${CLIENT}/`)) return route.abort();
      // As a browser sends it: the Host header names the host the page was asked of.
      const headers = { ...route.request().headers(), host: new URL(url).host };
      const response = await handle(new Request(url, { headers }));
      const answered: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        answered[name] = value;
      });
      await route.fulfill({
        status: response.status,
        headers: answered,
        body: Buffer.from(await response.arrayBuffer()),
      });
    });
    return context.newPage();
  }

  async function jsonLd(page: Page): Promise<Record<string, unknown>> {
    const text = await page.locator('script[type="application/ld+json"]').textContent();
    return JSON.parse(text ?? "null");
  }

  test("the client's index and item on its hostname, and the house's: accessible, JSON-LD", async () => {
    const page = await openPage();
    try {
      for (const [home, item, name] of [
        [`${CLIENT}/`, `${CLIENT}/c-insight-published`, "Client News"],
        [`${HOUSE}/newsroom`, `${HOUSE}/newsroom/h-insight-published`, "Org house-news"],
      ] as const) {
        const index = await page.goto(home);
        expect(index?.status()).toBe(200);
        expect(await page.locator(".brand").textContent()).toContain(name);
        expect(await page.locator("form[data-newsletter]").count()).toBe(
          home.startsWith(CLIENT) ? 1 : 0,
        );
        await expectAccessible(page);

        const story = await page.goto(item);
        expect(story?.status()).toBe(200);
        await expectAccessible(page);
        const article = await jsonLd(page);
        expect(article["@type"]).toBe("NewsArticle");
        for (const field of [
          "headline",
          "datePublished",
          "dateModified",
          "author",
          "publisher",
          "image",
          "mainEntityOfPage",
        ]) {
          expect(article[field]).toBeDefined();
        }
        expect(article.headline).toBe(await page.locator("h1").textContent());
      }
      const missing = await page.goto(`${CLIENT}/no-such-story`);
      expect(missing?.status()).toBe(404);
      await expectAccessible(page);
      const unknown = await page.goto("http://localhost/newsrooms-nowhere");
      expect(unknown?.status()).toBe(404);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
