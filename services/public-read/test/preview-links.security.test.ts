import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { assets } from "@newsroom/shared/db/schema";
import { EVENT } from "@newsroom/shared/events";
import { edge } from "@newsroom/shared/http/edge";
import { newId } from "@newsroom/shared/ids";
import { serviceEntry } from "@newsroom/shared/service";
import {
  applyStoryAction,
  insertHostname,
  insertPreviewLink,
  insertSite,
  insertStory,
} from "@newsroom/shared/testing/builders";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { createOrg, HOUSE_ORG, type Service, testConfig } from "./support/world.ts";

/**
 * A preview link's page as public reads serve it, on each kind of host: the approved version
 * with cleared images only, `noindex` and `private, no-store` on every answer, an opening
 * announced on the bus for a page served and for nothing else; 404 for a guess, a revoked or
 * expired link, another organization's link and a story no longer approved or scheduled.
 */
describe("preview link pages", () => {
  let database: TestDatabase;
  let service: Service;
  let handle: (request: Request) => Response | Promise<Response>;
  const bus = new MemoryBus();
  const opened: string[] = [];
  let houseId: string;
  let clientId: string;
  const uncleared = "https://cdn.example.com/embargo/uncleared.jpg";
  const cleared = "https://cdn.example.com/embargo/cleared.jpg";

  beforeAll(async () => {
    database = await testDatabase();
    const { db } = database;
    houseId = await createOrg(db, HOUSE_ORG, true);
    clientId = await createOrg(db, "client-co", true);
    const site = await insertSite(db, clientId, { slug: "client-news", name: "C", publisher: "C" });
    await insertHostname(db, site, "news.client.example");
    await db.insert(assets).values([
      { id: newId(), organizationId: houseId, url: uncleared, alt: "Secret", cleared: false },
      { id: newId(), organizationId: houseId, url: cleared, alt: "Harbour", cleared: true },
    ]);
    service = await createPublicReadService(testRuntime({ database, config: testConfig(), bus }));
    handle = edge(serviceEntry(service), { trustedProxies: "" });
    await bus.subscribe(
      async (event) => {
        if (event.type === EVENT.previewLinkOpened) opened.push(event.data.preview_link_id);
      },
      { durable: "preview-links-test", types: [EVENT.previewLinkOpened] },
    );
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await bus.close();
    await database?.close();
  });

  const get = (path: string, host = "localhost") =>
    Promise.resolve(handle(new Request(`http://${host}${path}`, { headers: { host } })));

  async function approved(orgId: string, slug: string) {
    const story = await insertStory(database.db, orgId, {
      type: "press_release",
      slug,
      title: `Title of ${slug}`,
      body: [
        { type: "paragraph", text: `Body of ${slug}.` },
        { type: "image", url: uncleared, alt: "Secret" },
        { type: "image", url: cleared, alt: "Harbour" },
      ],
    });
    await applyStoryAction(database.db, story.id, "submit");
    await applyStoryAction(database.db, story.id, "approve");
    return story;
  }

  function expectPrivate(response: Response) {
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect(response.headers.get("x-robots-tag")).toContain("noindex");
    expect(response.headers.get("cache-tag")).toBeNull();
    expect(response.headers.get("etag")).toBeNull();
  }

  test("the approved version, cleared images only, never kept; the opening announced", async () => {
    const story = await approved(houseId, "launch");
    const { id, token } = await insertPreviewLink(database.db, story);
    const response = await get(`/newsroom/preview/${token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/html");
    expectPrivate(response);
    const page = await response.text();
    expect(page).toContain("Title of launch");
    expect(page).toContain("Embargoed until publication");
    expect(page).toContain(cleared);
    expect(page).not.toContain(uncleared);
    expect(page).toContain('<meta name="robots" content="noindex">');
    for (let i = 0; i < 20 && !opened.includes(id); i++) await Bun.sleep(25);
    expect(opened.filter((linkId) => linkId === id)).toHaveLength(1);
  });

  test("a hosted site's link on its path and hostname; never on another organization's", async () => {
    const story = await approved(clientId, "client-launch");
    const { token } = await insertPreviewLink(database.db, story);
    expect((await get(`/n/client-news/preview/${token}`)).status).toBe(200);
    expect((await get(`/preview/${token}`, "news.client.example")).status).toBe(200);
    const house = await insertPreviewLink(database.db, await approved(houseId, "house-only"));
    for (const [path, host] of [
      [`/newsroom/preview/${token}`, "localhost"],
      [`/n/client-news/preview/${house.token}`, "localhost"],
      [`/preview/${house.token}`, "news.client.example"],
      [`/preview/${token}`, "unknown.example"],
    ] as const) {
      const response = await get(path, host);
      expect(response.status, `${host}${path}`).toBe(404);
      expectPrivate(response);
      expect(await response.text()).not.toContain("launch");
    }
  });

  test("guessed, revoked, expired or moved on: 404, and nothing announced", async () => {
    const before = opened.length;
    const story = await approved(houseId, "moved-on");
    const revoked = await insertPreviewLink(database.db, story, { revokedAt: new Date() });
    const expired = await insertPreviewLink(database.db, story, {
      expiresAt: new Date(Date.now() - 1000),
    });
    const guess = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    for (const token of [revoked.token, expired.token, guess, "not-a-token"]) {
      expect((await get(`/newsroom/preview/${token}`)).status, token).toBe(404);
    }
    const live = await insertPreviewLink(database.db, story);
    await applyStoryAction(database.db, story.id, "publish");
    const published = await get(`/newsroom/preview/${live.token}`);
    expect(published.status).toBe(303);
    expect(published.headers.get("location")).toBe(
      "https://newsrooms.example.test/newsroom/moved-on",
    );
    expectPrivate(published);
    await applyStoryAction(database.db, story.id, "unpublish");
    expect((await get(`/newsroom/preview/${live.token}`)).status).toBe(404);
    await Bun.sleep(50);
    expect(opened).toHaveLength(before);
  });
});
