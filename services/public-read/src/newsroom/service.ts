import type { Queryable } from "@newsroom/shared/db/index";
import { organizations } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import type { Newsroom } from "../content/service.ts";

/**
 * The house newsroom: the organization named by HOUSE_ORG, shown while its newsroom runs.
 * Its pages live on the origin of NEWSROOM_HOST: items at `/newsroom/{slug}`, topics at
 * `/newsroom/topics/{slug}`.
 */
export async function houseNewsroom(
  db: Queryable,
  config: { HOUSE_ORG: string; NEWSROOM_HOST: string },
): Promise<Newsroom> {
  const [org] = await db
    .select({ id: organizations.id, running: organizations.newsroomRunning })
    .from(organizations)
    .where(eq(organizations.slug, config.HOUSE_ORG));
  const origin = new URL(config.NEWSROOM_HOST).origin;
  return {
    organizationId: org?.running ? org.id : null,
    ownerId: org?.id ?? null,
    itemBase: `${origin}/newsroom`,
    topicBase: `${origin}/newsroom/topics`,
  };
}
