import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { organizations, type StoryStatus } from "@newsroom/shared/db/schema";
import { syntheticStories } from "@newsroom/shared/demo/synthetic-stories";
import { ApiError } from "@newsroom/shared/errors";
import { eq } from "drizzle-orm";
import { findOrganization } from "../resolve.ts";
import { insertStories } from "../stories/synthetic.ts";

/**
 * Fills a sandbox organization with synthetic stories in every status and runs its newsroom.
 * Never in production, and only for an organization marked `sandbox`.
 */
export async function seedSandbox(
  db: Db,
  orgIdOrSlug: string,
  howMany: number,
  serviceEnv: Config["SERVICE_ENV"],
): Promise<number> {
  if (serviceEnv === "production") {
    throw new ApiError("not_found", "Sandbox data is not made in production.");
  }
  const org = await findOrganization(db, orgIdOrSlug);
  if (!org.sandbox) {
    throw new ApiError("conflict", "Only an organization marked sandbox takes synthetic data.", {
      fields: [{ field: "sandbox", reason: "not_sandbox" }],
    });
  }
  await db
    .update(organizations)
    .set({ newsroomRunning: true, updatedAt: new Date() })
    .where(eq(organizations.id, org.id));
  const statuses: StoryStatus[] = [
    "published",
    "published",
    "review_required",
    "draft",
    "approved",
    "rejected",
    "unpublished",
    "ai_generated",
  ];
  const prefix = `sb${Date.now().toString(36)}-`;
  const ids = await insertStories(
    db,
    org.id,
    syntheticStories(howMany, Date.now() % 100_000, prefix),
    (i) => statuses[i % statuses.length]!,
  );
  return ids.length;
}
