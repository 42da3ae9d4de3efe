import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminToken } from "@newsroom/shared/config";
import { assets } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { newId } from "@newsroom/shared/ids";
import { serviceEntry } from "@newsroom/shared/service";
import { insertSite, insertStory, insertStoryVersion } from "@newsroom/shared/testing/builders";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { createOrg, houseAndClientWithSite, type Service, testConfig } from "./support/world.ts";

/**
 * The internal preview route the workspace calls: any version of a story, unpublished, through
 * the public item template with a preview banner and noindex, on the organization's house
 * newsroom or one of its sites; uncleared images shown marked. Only with ADMIN_TOKEN, only the
 * story's own organization's sites, and the public item route still shows nothing of it.
 */
describe("story previews", () => {
  let database: TestDatabase;
  let service: Service;
  let handle: (request: Request) => Response | Promise<Response>;
  let token: string;
  let storyId: string;
  let strangerSite: string;
  const unclearedUrl = "https://cdn.example.com/preview/uncleared.jpg";

  beforeAll(async () => {
    database = await testDatabase();
    const { db } = database;
    const { clientOrgId } = await houseAndClientWithSite(db);
    const stranger = await createOrg(db, "stranger-co", true);
    strangerSite = "stranger-site";
    await insertSite(db, stranger, { slug: strangerSite, name: "Stranger", publisher: "S" });
    const assetId = newId();
    await db.insert(assets).values({
      id: assetId,
      organizationId: clientOrgId,
      url: unclearedUrl,
      alt: "A room",
      cleared: false,
    });
    const story = await insertStory(db, clientOrgId, {
      type: "press_release",
      slug: "coming-soon",
      title: "Version one",
      body: [{ type: "paragraph", text: "First *draft*." }],
    });
    storyId = story.id;
    await insertStoryVersion(db, storyId, {
      title: "Version two <script>",
      body: [
        { type: "paragraph", text: "Second **draft** [link](javascript:alert(1))." },
        { type: "image", asset_id: assetId, caption: "The room" },
      ],
    });
    const config = testConfig();
    token = adminToken(config);
    service = await createPublicReadService(testRuntime({ database, config }));
    handle = edge(serviceEntry(service), { trustedProxies: "" });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await database?.close();
  });

  const preview = async (path: string, bearer: string | null = token) => {
    const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
    const response = await handle(new Request(`http://localhost${path}`, { headers }));
    return { status: response.status, body: (await response.json()) as { html?: string } };
  };

  test("any version renders with the public template, a banner, noindex and the uncleared image marked", async () => {
    const two = await preview(
      `/internal/v1/preview/stories/${storyId}/versions/2?site=client-news`,
    );
    expect(two.status).toBe(200);
    const page = two.body.html!;
    expect(page).toContain("Preview of version 2 (draft)");
    expect(page).toContain('<meta name="robots" content="noindex">');
    expect(page).toContain("<h1>Version two &lt;script&gt;</h1>");
    expect(page).toContain("Second <strong>draft</strong>");
    expect(page).not.toContain('href="javascript:');
    expect(page).toContain(`<img src="${unclearedUrl}" alt="A room"`);
    expect(page).toContain("Not cleared:");
    expect(page).toContain("Client News");

    const one = await preview(`/internal/v1/preview/stories/${storyId}/versions/1`);
    expect(one.status).toBe(200);
    expect(one.body.html).toContain("First <em>draft</em>.");
    expect(one.body.html).toContain("Preview of version 1");
  });

  test("without the token 401; another organization's site, a missing version or story 404", async () => {
    const path = `/internal/v1/preview/stories/${storyId}/versions/2`;
    expect((await preview(path, null)).status).toBe(401);
    expect((await preview(path, "wrong-token")).status).toBe(401);
    expect((await preview(`${path}?site=${strangerSite}`)).status).toBe(404);
    expect((await preview(`/internal/v1/preview/stories/${storyId}/versions/3`)).status).toBe(404);
    expect((await preview(`/internal/v1/preview/stories/${newId()}/versions/1`)).status).toBe(404);
  });

  test("the public pages still show nothing of the unpublished story or its uncleared image", async () => {
    const response = await handle(new Request("http://localhost/n/client-news/coming-soon"));
    const text = await response.text();
    expect(response.status).toBe(404);
    expect(text).not.toContain("Version two");
    expect(text).not.toContain(unclearedUrl);
  });
});
