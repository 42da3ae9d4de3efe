import type { EventBus } from "@newsroom/shared/bus/index";
import { type Config, loadConfig } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import {
  assets,
  hostnames,
  organizations,
  people,
  relatedStories,
  STORY_STATUSES,
  STORY_TYPES,
  type StoryStatus,
  type StoryType,
  sites,
  storyAssets,
  storyPeople,
  storyVersions,
} from "@newsroom/shared/db/schema";
import type { SyntheticStory } from "@newsroom/shared/demo/synthetic-stories";
import { edge } from "@newsroom/shared/http/edge";
import { newId } from "@newsroom/shared/ids";
import type { Runtime } from "@newsroom/shared/runtime";
import { serviceEntry } from "@newsroom/shared/service";
import {
  applyStoryAction,
  insertSite,
  insertStories,
  insertStory,
} from "@newsroom/shared/testing/builders";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { eq } from "drizzle-orm";
import { createPublicReadService, type PublicReadOptions } from "../../src/app.ts";

export const HOUSE_ORG = "house-news";
export const NEWSROOM_HOST = "https://newsrooms.example.test/n";

export function testConfig(extra: Record<string, string> = {}): Config {
  return loadConfig({ HOUSE_ORG, NEWSROOM_HOST, ...extra });
}

export type Service = Awaited<ReturnType<typeof createPublicReadService>>;

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  body: any;
  text: string;
}

/** A GET through the edge (request id, version header), as the gateway would pass it. */
export function client(service: Service) {
  const handle = edge(serviceEntry(service), { trustedProxies: "" });
  return async (path: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await handle(new Request(`http://localhost${path}`, { headers }));
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: response.status, headers: response.headers, body, text };
  };
}

export async function createOrg(db: Db, slug: string, running: boolean): Promise<string> {
  const id = newId();
  await db
    .insert(organizations)
    .values({ id, slug, name: `Org ${slug}`, newsroomRunning: running });
  return id;
}

/** The house and one client organization with one site, `client-news`: their ids. */
export async function houseAndClientWithSite(
  db: Db,
): Promise<{ houseId: string; clientOrgId: string }> {
  const houseId = await createOrg(db, HOUSE_ORG, true);
  const clientOrgId = await createOrg(db, "client-co", true);
  await insertSite(db, clientOrgId, {
    slug: "client-news",
    name: "Client News",
    publisher: "Client",
  });
  return { houseId, clientOrgId };
}

/** A story approved and ready to publish, with these topics; its id. */
export async function approvedStory(
  db: Db,
  orgId: string,
  slug: string,
  topics: string[],
): Promise<string> {
  const story = await insertStory(db, orgId, {
    type: "press_release",
    slug,
    title: `Title ${slug}`,
    body: [{ type: "paragraph", text: "Text" }],
    topics,
  });
  await applyStoryAction(db, story.id, "submit");
  await applyStoryAction(db, story.id, "approve");
  return story.id;
}

export interface StorySpec {
  type: StoryType;
  status: StoryStatus;
  slug: string;
  topics: string[];
  featured?: boolean;
  ageDays?: number;
  body?: Record<string, unknown>[];
}

export interface SeededStory extends StorySpec {
  id: string;
  title: string;
}

/** Inserts stories as the workspace's demo data does (shared builders); returns them with their ids. */
export async function seedStories(
  db: Db,
  organizationId: string,
  specs: StorySpec[],
): Promise<SeededStory[]> {
  const list: SyntheticStory[] = specs.map((spec, index) => ({
    type: spec.type,
    slug: spec.slug,
    title: `Title of ${spec.slug}`,
    summary: `Summary of ${spec.slug}`,
    body:
      spec.body ??
      (spec.type === "in_the_news"
        ? []
        : [
            { type: "heading", level: 2, text: `Heading of ${spec.slug}` },
            { type: "paragraph", text: `Paragraph of ${spec.slug}` },
          ]),
    topics: spec.topics,
    externalUrl: spec.type === "in_the_news" ? `https://coverage.example.com/${spec.slug}` : null,
    featured: spec.featured ?? false,
    ageDays: spec.ageDays ?? index * 0.5 + 0.1,
  }));
  const ids = await insertStories(db, organizationId, list, (i) => specs[i]!.status);
  return specs.map((spec, i) => ({ ...spec, id: ids[i]!, title: `Title of ${spec.slug}` }));
}

/** One story of every type in every status, slugs `{prefix}{type}-{status}`. */
export function everyTypeAndStatus(prefix: string): StorySpec[] {
  const specs: StorySpec[] = [];
  let n = 0;
  for (const status of STORY_STATUSES) {
    for (const type of STORY_TYPES) {
      n += 1;
      const slug = `${prefix}${type}-${status}`.replace(/_/g, "-");
      specs.push({
        type,
        status,
        slug,
        // Published items share public topics; hidden ones carry a topic of their own, which
        // must never be listed.
        topics:
          status === "published"
            ? [`${prefix}topic-all`, `${prefix}topic-${type}`.replace(/_/g, "-")]
            : [`${prefix}secret-${status}`.replace(/_/g, "-")],
        featured: n % 5 === 0,
        ageDays: n * 0.7,
      });
    }
  }
  return specs;
}

export interface OrgFixture {
  id: string;
  slug: string;
  stories: SeededStory[];
  published: SeededStory[];
  hidden: SeededStory[];
}

export interface World {
  database: TestDatabase;
  runtime: Runtime;
  service: Service;
  get: ReturnType<typeof client>;
  house: OrgFixture;
  /** A client organization with an enabled, live site and an active and a pending hostname. */
  client: OrgFixture & { site: string; activeHost: string; pendingHost: string };
  /** A running organization whose site is disabled (with an active hostname). */
  disabled: OrgFixture & { site: string; activeHost: string };
  /** An organization whose newsroom is not running, with an enabled site. */
  dormant: OrgFixture & { site: string };
  /** URLs of assets that must never appear: uncleared, or another organization's. */
  forbiddenAssetUrls: string[];
  clearedAssetUrls: string[];
  /** Names of people of another organization linked to a house story. */
  foreignPeople: string[];
  close(): Promise<void>;
}

async function orgFixture(
  db: Db,
  slug: string,
  prefix: string,
  running: boolean,
): Promise<OrgFixture> {
  const id = await createOrg(db, slug, running);
  const stories = await seedStories(db, id, everyTypeAndStatus(prefix));
  return {
    id,
    slug,
    stories,
    published: stories.filter((s) => s.status === "published"),
    hidden: stories.filter((s) => s.status !== "published"),
  };
}

async function addAsset(
  db: Db,
  organizationId: string,
  url: string,
  cleared: boolean,
  kind: "image" | "logo" = "image",
): Promise<string> {
  const id = newId();
  await db.insert(assets).values({ id, organizationId, url, alt: `alt ${url}`, kind, cleared });
  return id;
}

/**
 * The world every security test walks: every status and type in four organizations, enabled,
 * disabled and dormant sites, active and pending hostnames, cleared and uncleared assets,
 * related items in every status, people of the organization and of another one.
 */
export async function buildWorld(
  options: PublicReadOptions & { bus?: EventBus } = {},
): Promise<World> {
  const database = await testDatabase();
  const { db } = database;
  const house = await orgFixture(db, HOUSE_ORG, "h-", true);
  const clientOrg = await orgFixture(db, "client-co", "c-", true);
  const disabledOrg = await orgFixture(db, "disabled-co", "d-", true);
  const dormantOrg = await orgFixture(db, "dormant-co", "z-", false);

  const forbiddenAssetUrls: string[] = [];
  const clearedAssetUrls: string[] = [];
  const foreignPeople: string[] = [];

  for (const org of [house, clientOrg]) {
    const editor = {
      id: newId(),
      organizationId: org.id,
      name: `Editor of ${org.slug}`,
      role: "Editor",
    };
    await db.insert(people).values(editor);
    // A person and an asset of another organization wrongly linked to this one's stories.
    const stranger = {
      id: newId(),
      organizationId: disabledOrg.id,
      name: `Stranger near ${org.slug}`,
      role: null,
    };
    await db.insert(people).values(stranger);
    foreignPeople.push(stranger.name);
    const foreignAsset = await addAsset(
      db,
      disabledOrg.id,
      `https://cdn.example.com/foreign/${org.slug}.jpg`,
      true,
    );
    forbiddenAssetUrls.push(`https://cdn.example.com/foreign/${org.slug}.jpg`);

    for (const [index, story] of org.stories.entries()) {
      const clearedUrl = `https://cdn.example.com/${org.slug}/${story.slug}/cleared.jpg`;
      const unclearedUrl = `https://cdn.example.com/${org.slug}/${story.slug}/raw.jpg`;
      const cleared = await addAsset(db, org.id, clearedUrl, true);
      const uncleared = await addAsset(db, org.id, unclearedUrl, false);
      if (story.status === "published") clearedAssetUrls.push(clearedUrl);
      else forbiddenAssetUrls.push(clearedUrl);
      forbiddenAssetUrls.push(unclearedUrl);
      // The uncleared one first: position alone must not let it through.
      await db.insert(storyAssets).values([
        { storyId: story.id, assetId: uncleared, position: 0 },
        { storyId: story.id, assetId: cleared, position: 1 },
        { storyId: story.id, assetId: foreignAsset, position: 2 },
      ]);
      await db.insert(storyPeople).values([
        { storyId: story.id, personId: editor.id, position: 0 },
        { storyId: story.id, personId: stranger.id, position: 1 },
      ]);
      // Related: the next two stories, whatever their status.
      const next = [org.stories[index + 1], org.stories[index + 2]].filter(Boolean);
      for (const [position, related] of next.entries()) {
        await db
          .insert(relatedStories)
          .values({ storyId: story.id, relatedStoryId: related!.id, position });
      }
      // A body that references the uncleared asset by id and by URL, and the cleared one by id.
      if (story.type !== "in_the_news") {
        await db
          .update(storyVersions)
          .set({
            body: [
              { type: "heading", level: 2, text: `Heading of ${story.slug}` },
              { type: "paragraph", text: `Paragraph of ${story.slug}` },
              { type: "image", asset_id: uncleared, caption: "never shown" },
              { type: "image", src: unclearedUrl, caption: "never shown either" },
              { type: "image", asset_id: cleared, caption: `Cleared image of ${story.slug}` },
            ],
          })
          .where(eq(storyVersions.storyId, story.id));
      }
    }
  }

  // The client's site: enabled, live, a cleared logo, an active and a pending hostname.
  const clientLogo = await addAsset(
    db,
    clientOrg.id,
    "https://cdn.example.com/client-co/logo.svg",
    true,
    "logo",
  );
  clearedAssetUrls.push("https://cdn.example.com/client-co/logo.svg");
  const clientSite = newId();
  await db.insert(sites).values({
    id: clientSite,
    organizationId: clientOrg.id,
    slug: "client-news",
    name: "Client News",
    publisher: "Client Co",
    accent: "#123456",
    logoAssetId: clientLogo,
    enabled: true,
    live: true,
  });
  await db.insert(hostnames).values([
    {
      id: newId(),
      organizationId: clientOrg.id,
      siteId: clientSite,
      hostname: "news.client.example",
      status: "active",
      activatedAt: new Date(),
    },
    {
      id: newId(),
      organizationId: clientOrg.id,
      siteId: clientSite,
      hostname: "press.client.example",
      status: "pending",
    },
  ]);

  // The disabled site, with an active hostname that must not resolve.
  const disabledSite = newId();
  await db.insert(sites).values({
    id: disabledSite,
    organizationId: disabledOrg.id,
    slug: "disabled-news",
    name: "Disabled News",
    publisher: "Disabled Co",
    enabled: false,
    live: true,
  });
  await db.insert(hostnames).values({
    id: newId(),
    organizationId: disabledOrg.id,
    siteId: disabledSite,
    hostname: "news.disabled.example",
    status: "active",
    activatedAt: new Date(),
  });

  // The dormant organization's enabled site: its record shows, its content does not.
  const dormantLogo = await addAsset(
    db,
    dormantOrg.id,
    "https://cdn.example.com/dormant-co/logo-raw.svg",
    false,
    "logo",
  );
  forbiddenAssetUrls.push("https://cdn.example.com/dormant-co/logo-raw.svg");
  await db.insert(sites).values({
    id: newId(),
    organizationId: dormantOrg.id,
    slug: "dormant-news",
    name: "Dormant News",
    publisher: "Dormant Co",
    logoAssetId: dormantLogo,
    enabled: true,
    live: false,
  });

  const runtime = testRuntime({ database, bus: options.bus, config: testConfig() });
  const service = await createPublicReadService(runtime, options);
  return {
    database,
    runtime,
    service,
    get: client(service),
    house,
    client: {
      ...clientOrg,
      site: "client-news",
      activeHost: "news.client.example",
      pendingHost: "press.client.example",
    },
    disabled: { ...disabledOrg, site: "disabled-news", activeHost: "news.disabled.example" },
    dormant: { ...dormantOrg, site: "dormant-news" },
    forbiddenAssetUrls,
    clearedAssetUrls,
    foreignPeople,
    close: async () => {
      await service.stop();
      await runtime.bus.close();
      await database.close();
    },
  };
}

/** Every string anywhere in a JSON value. */
export function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      stringsIn(item, out);
    }
  }
  return out;
}

/** Walks every page of an index or topic route; returns the pages' bodies. */
export async function walkPages(
  get: (path: string) => Promise<Answer>,
  path: string,
  maxPages = 100,
): Promise<Answer[]> {
  const pages: Answer[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const separator = path.includes("?") ? "&" : "?";
    const answer = await get(cursor ? `${path}${separator}cursor=${cursor}` : path);
    pages.push(answer);
    if (answer.status !== 200 || !answer.body.has_more) return pages;
    cursor = answer.body.next_cursor;
  }
  throw new Error(`more than ${maxPages} pages at ${path}`);
}
