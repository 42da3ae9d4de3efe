import type { Queryable } from "@newsroom/shared/db/index";
import { organizations } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { newId } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";
import { findOrganization, type OrganizationRow } from "../resolve.ts";

export async function createOrganization(
  db: Queryable,
  input: { slug: string; name: string; newsroom_running?: boolean; sandbox?: boolean },
): Promise<OrganizationRow> {
  const [existing] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.slug, input.slug));
  if (existing) {
    throw new ApiError("conflict", "An organization with this slug exists.", {
      fields: [{ field: "slug", reason: "taken" }],
    });
  }
  const [row] = await db
    .insert(organizations)
    .values({
      id: newId(),
      slug: input.slug,
      name: input.name,
      newsroomRunning: input.newsroom_running ?? false,
      sandbox: input.sandbox ?? false,
    })
    .returning();
  return row!;
}

export async function updateOrganization(
  db: Queryable,
  idOrSlug: string,
  input: {
    name?: string;
    newsroom_running?: boolean;
    sandbox?: boolean;
    newsletter_enabled?: boolean;
    newsletter_origins?: string[];
  },
): Promise<OrganizationRow> {
  const org = await findOrganization(db, idOrSlug);
  const [row] = await db
    .update(organizations)
    .set({
      name: input.name ?? org.name,
      newsroomRunning: input.newsroom_running ?? org.newsroomRunning,
      sandbox: input.sandbox ?? org.sandbox,
      newsletterEnabled: input.newsletter_enabled ?? org.newsletterEnabled,
      newsletterOrigins: input.newsletter_origins ?? org.newsletterOrigins,
      updatedAt: new Date(),
    })
    .where(eq(organizations.id, org.id))
    .returning();
  return row!;
}
