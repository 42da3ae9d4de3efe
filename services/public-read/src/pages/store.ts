import type { Queryable } from "@newsroom/shared/db/index";
import { organizations } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";

/** The organization behind a newsroom: its name and whether its newsletter takes sign-ups. */
export async function organizationOfPages(
  db: Queryable,
  organizationId: string,
): Promise<{ slug: string; name: string; newsletterEnabled: boolean } | null> {
  const [row] = await db
    .select({
      slug: organizations.slug,
      name: organizations.name,
      newsletterEnabled: organizations.newsletterEnabled,
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row ?? null;
}
