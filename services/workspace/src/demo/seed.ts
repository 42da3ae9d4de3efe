import { acceptedKeyEnvironment } from "@newsroom/shared/api-keys";
import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import {
  assets,
  hostnames,
  type MemberRole,
  organizations,
  people,
  relatedStories,
  type StoryStatus,
  sites,
  storyAssets,
  storyPeople,
  workspaceMemberships,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { syntheticStories } from "@newsroom/shared/demo/synthetic-stories";
import { newId } from "@newsroom/shared/ids";
import { count, eq, inArray } from "drizzle-orm";
import { addMember } from "../identity/members/service.ts";
import { createApiKey } from "../keys/service.ts";
import { insertStories, type StoryDecider } from "../stories/synthetic.ts";
import { parseWebsiteOrigin } from "../web/newsletter-origin.ts";

const _DAY_MS = 86_400_000;

/** People, cleared and uncleared images, and related links for the first stories. */
async function decorate(db: Db, organizationId: string, storyIds: string[]): Promise<void> {
  const editor = { id: newId(), organizationId, name: "Alex Rivera", role: "Editor" };
  const writer = { id: newId(), organizationId, name: "Sam Okafor", role: "Writer" };
  await db.insert(people).values([editor, writer]);
  const decorated = storyIds.slice(0, 12).map((storyId, index) => ({
    storyId,
    index,
    cleared: {
      id: newId(),
      organizationId,
      url: `https://cdn.example.com/img/${index}.jpg`,
      alt: "Illustration",
      cleared: true,
    },
    uncleared: {
      id: newId(),
      organizationId,
      url: `https://cdn.example.com/raw/${index}.jpg`,
      alt: "Not cleared",
      cleared: false,
    },
  }));
  if (decorated.length === 0) return;
  await db.insert(assets).values(decorated.flatMap((d) => [d.cleared, d.uncleared]));
  await db.insert(storyAssets).values(
    decorated.flatMap((d) => [
      { storyId: d.storyId, assetId: d.cleared.id, position: 0 },
      { storyId: d.storyId, assetId: d.uncleared.id, position: 1 },
    ]),
  );
  await db
    .insert(storyPeople)
    .values(
      decorated.map((d) => ({ storyId: d.storyId, personId: d.index % 2 ? editor.id : writer.id })),
    );
  const related = decorated.flatMap((d) => {
    const relatedStoryId = storyIds[d.index + 1];
    return relatedStoryId ? [{ storyId: d.storyId, relatedStoryId }] : [];
  });
  if (related.length > 0) await db.insert(relatedStories).values(related);
}

export interface DemoResult {
  seeded: boolean;
  testKey?: string;
  /** The slug of the organization the test key belongs to. */
  testKeyOrg?: string;
  /** The demo's people, who sign in with codes sent to the local email inbox. */
  people?: DemoPerson[];
}

export interface DemoPerson {
  email: string;
  org: string;
  role: MemberRole;
}

/** A staff owner of the house organization, and an owner, approver and editor of the client. */
export function demoPeople(houseOrg: string): DemoPerson[] {
  return [
    { email: `staff@${houseOrg}.example`, org: houseOrg, role: "owner" },
    { email: "owner@northwind.example", org: "northwind", role: "owner" },
    { email: "approver@northwind.example", org: "northwind", role: "approver" },
    { email: "editor@northwind.example", org: "northwind", role: "editor" },
  ];
}

/**
 * Gives the demo organizations their people, when the demo client exists and nobody is a member
 * of anything yet (a database seeded before people existed); otherwise changes nothing.
 */
export async function seedDemoPeople(db: Db, houseOrg: string): Promise<DemoPerson[]> {
  const demoOrgs = await db
    .select({ slug: organizations.slug })
    .from(organizations)
    .where(inArray(organizations.slug, [houseOrg, "northwind"]));
  const [members] = await db.select({ n: count() }).from(workspaceMemberships);
  if (demoOrgs.length < 2 || (members?.n ?? 0) > 0) return [];
  const people = demoPeople(houseOrg);
  for (const person of people) await addMember(db, person.org, person, "demo");
  return people;
}

/**
 * Who decided on an organization's demo stories: its approver, or its owner when it has none
 * (the house organization). A real member, so the decisions obey the rules of real ones.
 */
async function demoDecider(db: Db, houseOrg: string, org: string): Promise<StoryDecider> {
  const members = demoPeople(houseOrg).filter((person) => person.org === org);
  const decider =
    members.find((person) => person.role === "approver") ??
    members.find((person) => person.role === "owner");
  const [person] = await db
    .select({ id: workspacePeople.id })
    .from(workspacePeople)
    .where(eq(workspacePeople.email, decider!.email));
  return { personId: person!.id, role: decider!.role };
}

/**
 * On an empty database: the house newsroom (36 published items across all six types), one client
 * organization with a running newsroom, an enabled hosted site with an active hostname, drafts,
 * a review queue, and a key with every scope of the kind the deployment accepts (`armk_test_`
 * outside production), returned to be printed once.
 */
export async function seedDemo(
  db: Db,
  houseOrg: string,
  serviceEnv: Config["SERVICE_ENV"],
): Promise<DemoResult> {
  const [existing] = await db.select({ n: count() }).from(organizations);
  if ((existing?.n ?? 0) > 0) return { seeded: false, people: await seedDemoPeople(db, houseOrg) };

  const houseId = newId();
  await db.insert(organizations).values({
    id: houseId,
    slug: houseOrg,
    name: "Armage Newsroom",
    newsroomRunning: true,
  });
  const clientId = newId();
  await db.insert(organizations).values({
    id: clientId,
    slug: "northwind",
    name: "Northwind Cooperative",
    newsroomRunning: true,
    newsletterEnabled: true,
    // A page on this machine may try embed.js in development only: the one rule decides.
    newsletterOrigins: ["http://localhost:5173", "https://www.northwind.example"].flatMap(
      (origin) => {
        const parsed = parseWebsiteOrigin(origin, serviceEnv);
        return "origin" in parsed ? [parsed.origin] : [];
      },
    ),
  });
  const logo = {
    id: newId(),
    organizationId: clientId,
    url: "https://cdn.example.com/northwind/logo.svg",
    alt: "Northwind",
    kind: "logo" as const,
    cleared: true,
  };
  await db.insert(assets).values(logo);
  const siteId = newId();
  await db.insert(sites).values({
    id: siteId,
    organizationId: clientId,
    slug: "northwind",
    name: "Northwind News",
    publisher: "Northwind Cooperative",
    accent: "#0b6e4f",
    logoAssetId: logo.id,
    enabled: true,
    live: true,
  });
  await db.insert(hostnames).values([
    {
      id: newId(),
      organizationId: clientId,
      siteId,
      hostname: "news.northwind.example",
      status: "active",
      activatedAt: new Date(),
    },
    {
      id: newId(),
      organizationId: clientId,
      siteId,
      hostname: "press.northwind.example",
      status: "pending",
    },
  ]);
  const people = await seedDemoPeople(db, houseOrg);
  const houseStories = syntheticStories(40, 7);
  const houseIds = await insertStories(
    db,
    houseId,
    houseStories,
    (i) =>
      i < 36
        ? "published"
        : (["draft", "review_required", "rejected", "unpublished"] as const)[i - 36]!,
    await demoDecider(db, houseOrg, houseOrg),
  );
  await decorate(db, houseId, houseIds);
  const clientStatuses: StoryStatus[] = [
    ...Array<StoryStatus>(10).fill("published"),
    "draft",
    "draft",
    "draft",
    "ai_generated",
    "review_required",
    "review_required",
    "rejected",
    "approved",
    "scheduled",
    "unpublished",
    "archived",
  ];
  const clientIds = await insertStories(
    db,
    clientId,
    syntheticStories(clientStatuses.length, 42, "nw-"),
    (i) => clientStatuses[i]!,
    await demoDecider(db, houseOrg, "northwind"),
  );
  await decorate(db, clientId, clientIds);
  const { secret } = await createApiKey(
    db,
    clientId,
    {
      environment: acceptedKeyEnvironment(serviceEnv),
      scopes: ["stories:read", "approvals:read", "feed:read", "webhooks:read"],
      lifetime_days: 365,
    },
    serviceEnv,
  );
  return { seeded: true, testKey: secret, testKeyOrg: "northwind", people };
}
