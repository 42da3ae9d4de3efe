import type { Db } from "@newsroom/shared/db/index";
import { stories } from "@newsroom/shared/db/schema";
import { createOrganization, updateOrganization } from "@newsroom/workspace/organizations/service";
import { activateHostname, addHostname, createSite } from "@newsroom/workspace/sites/service";
import { createStory, transitionStory } from "@newsroom/workspace/stories/service";
import { eq } from "drizzle-orm";
import { random } from "./harness.ts";

export interface NewsletterOrg {
  id: string;
  slug: string;
  name: string;
  origin: string;
}

/** An organization with its newsletter turned on for one website origin (and a hosted site). */
export async function newsletterOrg(
  db: Db,
  options: {
    enabled?: boolean;
    site?: { accent?: string; hostname?: string };
    /** The organization's name (the display name its emails are sent under). */
    name?: string;
  } = {},
): Promise<NewsletterOrg> {
  const slug = `org-${random()}`;
  const origin = `https://www.${slug}.example`;
  const org = await createOrganization(db, { slug, name: options.name ?? `Acme ${slug}` });
  await updateOrganization(db, slug, {
    newsletter_enabled: options.enabled ?? true,
    newsletter_origins: [origin],
  });
  if (options.site) {
    const site = await createSite(db, slug, {
      site: `site-${random()}`,
      name: "Acme News",
      publisher: "Acme",
      accent: options.site.accent,
      enabled: true,
    });
    if (options.site.hostname) {
      await addHostname(db, site.slug, options.site.hostname);
      await activateHostname(db, site.slug, options.site.hostname);
    }
  }
  return { id: org.id, slug, name: org.name, origin };
}

/** A published story of an organization, published at `publishedAt` (default now). */
export async function publishedStory(
  db: Db,
  org: string,
  input: { slug: string; title: string; summary?: string; publishedAt?: Date },
): Promise<string> {
  const story = await createStory(db, org, {
    type: "insight",
    slug: input.slug,
    title: input.title,
    summary: input.summary ?? null,
    body: [{ type: "paragraph", text: input.title }],
  });
  for (const action of ["submit", "approve", "publish"] as const) {
    await transitionStory(db, story.id, { action });
  }
  if (input.publishedAt) {
    await db
      .update(stories)
      .set({ publishedAt: input.publishedAt })
      .where(eq(stories.id, story.id));
  }
  return story.id;
}
