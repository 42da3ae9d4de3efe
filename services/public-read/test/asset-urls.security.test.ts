import { afterAll, beforeAll, expect, test } from "bun:test";
import { assets, sites } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { insertStories } from "@newsroom/shared/testing/builders";
import { testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import {
  type Answer,
  client,
  createOrg,
  HOUSE_ORG,
  type Service,
  testConfig,
} from "./support/world.ts";

/** An uncleared asset's URL written inside text never leaves; a cleared one's stays. */
const UNCLEARED = "https://cdn.example.com/raw/secret-chart.png";
const CLEARED = "https://cdn.example.com/img/cleared-chart.png";

let database: Awaited<ReturnType<typeof testDatabase>>;
let service: Service;
let get: (path: string) => Promise<Answer>;

beforeAll(async () => {
  database = await testDatabase();
  const { db } = database;
  const orgId = await createOrg(db, HOUSE_ORG, true);
  await db.insert(assets).values([
    { id: newId(), organizationId: orgId, url: UNCLEARED, alt: "raw", cleared: false },
    { id: newId(), organizationId: orgId, url: CLEARED, alt: "ok", cleared: true },
  ]);
  await db.insert(sites).values({
    id: newId(),
    organizationId: orgId,
    slug: "house-site",
    name: "House site",
    publisher: "House",
    enabled: true,
    live: true,
  });
  await insertStories(
    db,
    orgId,
    [
      {
        type: "insight",
        slug: "with-assets",
        title: `Chart ${UNCLEARED}`,
        summary: `The chart (${UNCLEARED}) and the cleared one ${CLEARED}.`,
        body: [
          { type: "paragraph", text: `See ${UNCLEARED}. Then ${CLEARED} too.` },
          { type: "paragraph", text: `![chart](${UNCLEARED}) and [ok](${CLEARED})` },
          { type: "paragraph", text: `Upper case: ${UNCLEARED.toUpperCase()}, still out.` },
          {
            type: "paragraph",
            text: "Links",
            links: [{ href: `https://x.example/?u=${UNCLEARED}` }],
          },
          { type: "quote", text: `<a href="${UNCLEARED}">a quote</a>` },
          { type: "list", items: [`one ${UNCLEARED}`, `two ${CLEARED}`] },
        ],
        topics: ["charts"],
        externalUrl: null,
        featured: true,
        ageDays: 1,
      },
    ],
    () => "published",
  );
  service = await createPublicReadService(testRuntime({ database, config: testConfig() }));
  get = client(service);
});

afterAll(async () => {
  await service.stop();
  await database.close();
});

const PATHS = [
  "/v1/public/newsroom",
  "/v1/public/newsroom/with-assets",
  "/v1/public/topics/charts",
  "/v1/public/search/newsroom",
  "/v1/public/sites/house-site/newsroom",
  "/v1/public/sites/house-site/newsroom/with-assets",
  "/v1/public/sites/house-site/topics/charts",
];

test("an uncleared asset's URL inside text appears in no public answer", async () => {
  for (const path of PATHS) {
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expect(answer.text.toLowerCase()).not.toContain("raw/secret-chart");
    expect(answer.text).toContain("Chart");
  }
});

test("the cleared asset's URL and the text around the removed one stay", async () => {
  for (const path of [
    "/v1/public/newsroom/with-assets",
    "/v1/public/sites/house-site/newsroom/with-assets",
  ]) {
    const item = (await get(path)).body;
    expect(item.summary).toBe(`The chart () and the cleared one ${CLEARED}.`);
    expect(item.body).toEqual([
      { type: "paragraph", text: `See . Then ${CLEARED} too.` },
      { type: "paragraph", text: `![chart]() and [ok](${CLEARED})` },
      { type: "paragraph", text: "Upper case: , still out." },
      { type: "paragraph", text: "Links", links: [{ href: "https://x.example/?u=" }] },
      { type: "quote", text: '<a href="">a quote</a>' },
      { type: "list", items: ["one ", `two ${CLEARED}`] },
    ]);
  }
  const search = (await get("/v1/public/search/newsroom")).body;
  expect(search.documents[0].text).toContain(`Then ${CLEARED} too.`);
});
