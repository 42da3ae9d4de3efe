/**
 * The part of a start banner (`npm start`, `npm run start:cluster -- --demo`) that says where
 * links point, which organizations, sites and newsletter origins exist, and the test key: shown
 * on the first start only, with how to make another on every later one.
 */
import type { Config } from "@newsroom/shared/config";
import type { Queryable } from "@newsroom/shared/db/index";
import {
  hostnames,
  organizations,
  sites,
  workspaceMemberships,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { demoPeople } from "@newsroom/workspace/demo/seed";
import { asc, eq, inArray } from "drizzle-orm";

/** More than this many organizations are counted, not listed. */
const LISTED = 8;

export interface DemoKey {
  testKey?: string;
  testKeyOrg?: string;
}

type Links = Pick<Config, "PORT" | "PUBLIC_BASE_URL" | "NEWSROOM_HOST">;

/** Where links in items, sitemaps and emails point, and whether that came from PORT. */
export function linkLines(config: Links): string[] {
  const fromPort = (value: string, derived: string, variable: string) =>
    value === derived ? `(from PORT; set ${variable} for a public address)` : `(${variable})`;
  const base = `http://localhost:${config.PORT}`;
  return [
    `  Links          ${config.PUBLIC_BASE_URL}  ${fromPort(config.PUBLIC_BASE_URL, base, "PUBLIC_BASE_URL")}`,
    `  Newsrooms      ${config.NEWSROOM_HOST}/{site}  ${fromPort(config.NEWSROOM_HOST, `${base}/newsrooms`, "NEWSROOM_HOST")}`,
  ];
}

/** What a person opens first, on every start: the index page, the web app, the API reference. */
export function addressLines(url: string): string[] {
  return [
    `  Home           ${url}/  (links to all of these)`,
    `  Web app        ${url}/app/`,
    `  API reference  ${url}/docs`,
  ];
}

/** The demo people still members (who to sign in as), on every start: the README's walk needs them. */
export async function peopleLines(
  db: Queryable,
  config: Pick<Config, "HOUSE_ORG">,
  where: { url: string; inbox?: string },
): Promise<string[]> {
  const demo = demoPeople(config.HOUSE_ORG);
  const members = await db
    .select({
      email: workspacePeople.email,
      org: organizations.slug,
      role: workspaceMemberships.role,
    })
    .from(workspaceMemberships)
    .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
    .innerJoin(organizations, eq(organizations.id, workspaceMemberships.organizationId))
    .where(
      inArray(
        workspacePeople.email,
        demo.map((person) => person.email),
      ),
    );
  const order = (email: string) => demo.findIndex((person) => person.email === email);
  members.sort((a, b) => order(a.email) - order(b.email));
  if (members.length === 0) return [];
  const inbox = where.inbox ? `; the code arrives in the email inbox (${where.inbox}/)` : "";
  const lines = [`  Demo people    sign in at ${where.url}/app/ as one of them${inbox}:`];
  for (const person of members) {
    lines.push(`    ${person.email.padEnd(28)} ${person.role} of ${person.org}`);
  }
  return lines;
}

export async function demoLines(
  db: Queryable,
  config: Pick<Config, "HOUSE_ORG" | "NEWSROOM_HOST">,
  key: DemoKey,
): Promise<string[]> {
  const orgs = await db
    .select({
      id: organizations.id,
      slug: organizations.slug,
      name: organizations.name,
      origins: organizations.newsletterOrigins,
      newsletter: organizations.newsletterEnabled,
    })
    .from(organizations)
    .orderBy(asc(organizations.createdAt), asc(organizations.slug));
  if (orgs.length === 0) return [];
  const siteRows = await db
    .select({ org: sites.organizationId, slug: sites.slug, live: sites.live })
    .from(sites)
    .orderBy(asc(sites.slug));
  const activeHosts = await db
    .select({ site: sites.slug, hostname: hostnames.hostname })
    .from(hostnames)
    .innerJoin(sites, eq(sites.id, hostnames.siteId))
    .where(eq(hostnames.status, "active"));

  const lines = ["  Organizations"];
  for (const org of orgs.slice(0, LISTED)) {
    const notes = [org.slug === config.HOUSE_ORG ? "the house newsroom (HOUSE_ORG)" : ""];
    if (org.newsletter) {
      notes.push(
        `newsletter sign-up from ${org.origins.length > 0 ? org.origins.join(", ") : "no origin yet"}`,
      );
    }
    lines.push(`    ${org.slug.padEnd(14)} ${org.name}${withNotes(notes)}`);
    for (const site of siteRows.filter((s) => s.org === org.id)) {
      const hosts = activeHosts.filter((h) => h.site === site.slug).map((h) => h.hostname);
      const where = [
        `${config.NEWSROOM_HOST}/${site.slug}`,
        ...hosts.map((h) => `https://${h}`),
      ].join(", ");
      lines.push(`      site ${site.slug}: ${where}${site.live ? "" : " (not live)"}`);
    }
  }
  if (orgs.length > LISTED) lines.push(`    and ${orgs.length - LISTED} more`);

  if (key.testKey) {
    lines.push(
      `  Test API key of ${key.testKeyOrg ?? "the demo organization"} (shown once):`,
      `    ${key.testKey}`,
    );
  } else {
    const org = orgs.find((o) => o.slug !== config.HOUSE_ORG)?.slug ?? orgs[0]!.slug;
    lines.push(
      "  API keys       shown only when made. A new test key:",
      `    npm run admin -- key-create ${org} --environment test --scopes stories:read,feed:read --lifetime-days 90`,
    );
  }
  return lines;
}

function withNotes(notes: string[]): string {
  const shown = notes.filter(Boolean);
  return shown.length > 0 ? `: ${shown.join("; ")}` : "";
}
