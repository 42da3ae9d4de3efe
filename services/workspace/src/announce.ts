import type { EventBus } from "@newsroom/shared/bus/index";
import { EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";

/** Tells public-read replicas that an organization's sites changed (best effort, after commit). */
export async function announceSiteChange(
  bus: EventBus,
  organizationId: string,
  site: string | null,
): Promise<void> {
  try {
    await bus.publish({
      id: newId(),
      type: EVENT.siteChanged,
      created_at: new Date().toISOString(),
      data: { organization_id: organizationId, site },
    });
  } catch (error) {
    log.warn("site change not announced", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
