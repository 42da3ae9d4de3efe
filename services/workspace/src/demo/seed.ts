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
import { clearAsset, uploadAsset } from "../assets/service.ts";
import { addMember } from "../identity/members/service.ts";
import { createApiKey } from "../keys/service.ts";
import { insertStories, type StoryDecider } from "../stories/synthetic.ts";
import { parseWebsiteOrigin } from "../web/newsletter-origin.ts";
import { PLACEHOLDER_COLOURS, placeholderImage } from "./placeholder-images.ts";

const _DAY_MS = 86_400_000;

/**
 * The demo's images, stored as uploads: a cleared placeholder per colour and one uncleared
 * picture (which no public route shows).
 */
async function demoImages(db: Db, organizationId: string, name: string) {
  const cleared = [];
  for (const [index, colour] of PLACEHOLDER_COLOURS.entries()) {
    const upload = await uploadAsset(
      db,
      organizationId,
      {
        bytes: await placeholderImage(name, colour),
        alt: `Placeholder picture ${index + 1} of ${name}`,
        credit: "Demo placeholder",
        rights_holder: name,
      },
      DEMO_ACTOR,
    );
    cleared.push((await clearAsset(db, organizationId, upload.row.id, DEMO_ACTOR)).row.id);
  }
  const uncleared = await uploadAsset(
    db,
    organizationId,
    {
      bytes: await placeholderImage("Not cleared", "#444444"),
      alt: "A picture not yet cleared",
      credit: "Demo placeholder",
    },
    DEMO_ACTOR,
  );
  return { cleared, uncleared: uncleared.row.id };
}

const DEMO_ACTOR = "demo";

/**
 * People, images and related links: every story shows a cleared image; the first twelve also
 * name an uncleared one, and have people and related stories.
 */
async function decorate(
  db: Db,
  organizationId: string,
  name: string,
  storyIds: string[],
): Promise<void> {
  const editor = { id: newId(), organizationId, name: "Alex Rivera", role: "Editor" };
  const writer = { id: newId(), organizationId, name: "Sam Okafor", role: "Writer" };
  await db.insert(people).values([editor, writer]);
  if (storyIds.length === 0) return;
  const images = await demoImages(db, organizationId, name);
  await db.insert(storyAssets).values(
    storyIds.flatMap((storyId, index) => [
      {
        storyId,
        assetId: images.cleared[index % images.cleared.length]!,
        position: 0,
      },
      ...(index < 12 ? [{ storyId, assetId: images.uncleared, position: 1 }] : []),
    ]),
  );
  const decorated = storyIds.slice(0, 12).map((storyId, index) => ({ storyId, index }));
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
  const uploadedLogo = await uploadAsset(
    db,
    clientId,
    { bytes: await placeholderImage("Northwind", "#0b6e4f", 480, 160), alt: "Northwind" },
    DEMO_ACTOR,
  );
  await db.update(assets).set({ kind: "logo" }).where(eq(assets.id, uploadedLogo.row.id));
  const logo = (await clearAsset(db, clientId, uploadedLogo.row.id, DEMO_ACTOR)).row;
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
  await decorate(db, houseId, "Armage Newsroom", houseIds);
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
  await decorate(db, clientId, "Northwind News", clientIds);
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
