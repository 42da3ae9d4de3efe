import type { Queryable } from "@newsroom/shared/db/index";
import { assets, organizations } from "@newsroom/shared/db/schema";
import { and, desc, eq } from "drizzle-orm";
import type { AssetOut } from "../content/model.ts";

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

/** An organization's newest cleared logo: the house newsroom's, which has no site record. */
export async function clearedLogoOf(
  db: Queryable,
  organizationId: string,
): Promise<AssetOut | null> {
  const [row] = await db
    .select({ url: assets.url, alt: assets.alt, kind: assets.kind })
    .from(assets)
    .where(
      and(
        eq(assets.organizationId, organizationId),
        eq(assets.kind, "logo"),
        eq(assets.cleared, true),
      ),
    )
    .orderBy(desc(assets.createdAt), desc(assets.id))
    .limit(1);
  return row ?? null;
}
