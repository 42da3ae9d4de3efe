import { afterAll, beforeAll, expect, test } from "bun:test";
import { organizations } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { serviceEntry } from "@newsroom/shared/service";
import { expectAccessible } from "@newsroom/shared/testing/accessibility";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eq } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { buildWorld, type World } from "./support/world.ts";

/** Every kind of public page passes axe-core in Chromium, light and dark. */
describeInBrowser("public pages in Chromium", () => {
  let world: World;
  let browser: Browser;
  let server: ReturnType<typeof Bun.serve>;
  let base: string;

  beforeAll(async () => {
    world = await buildWorld();
    const handle = edge(serviceEntry(world.service), { trustedProxies: "" });
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => handle(request) });
    base = `http://127.0.0.1:${server.port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.stop(true);
    await world?.close();
  });

  test("house and hosted pages: index, item, topic, not found, newsletter sign-up", async () => {
    // With the newsletter on, pages carry its form, and readers without script get a page of its own.
    await world.database.db
      .update(organizations)
      .set({ newsletterEnabled: true })
      .where(eq(organizations.id, world.client.id));
    const paths = [
      "/newsroom",
      "/newsroom/h-insight-published",
      "/newsroom/topics/h-topic-all",
      "/newsroom/no-such-item",
      "/n/client-news",
      "/n/client-news/c-video-published",
      "/n/client-news/topics/c-topic-all",
      "/n/client-news/_newsletter",
    ];
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ colorScheme, bypassCSP: true });
      // Only this machine: images on the example CDN are never fetched.
      await context.route("**/*", (route) =>
        route.request().url().startsWith(base) ? route.continue() : route.abort(),
      );
      try {
        const page = await context.newPage();
        for (const path of paths) {
          const response = await page.goto(`${base}${path}`);
          expect(response?.status(), path).toBe(path.includes("no-such") ? 404 : 200);
          await expectAccessible(page);
        }
      } finally {
        await context.close();
      }
    }
  }, 60_000);
});
