import type { EventBus } from "@newsroom/shared/bus/index";
import { type BusEvent, type DataChangedEvent, EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";

/**
 * Tells readers that cache (public reads, the client API) what changed, after the commit.
 * Best effort: a lost announcement costs freshness, never correctness of the record.
 */
async function announce(bus: EventBus, event: BusEvent): Promise<void> {
  try {
    await bus.publish(event);
  } catch (error) {
    log.warn("change not announced", {
      type: event.type,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** An organization's sites, hostnames or newsroom changed. */
export function announceSiteChange(
  bus: EventBus,
  organizationId: string,
  site: string | null,
): Promise<void> {
  return announce(bus, {
    id: newId(),
    type: EVENT.siteChanged,
    created_at: new Date().toISOString(),
    data: { organization_id: organizationId, site },
  });
}

/** An organization's stories, keys, settings or webhook endpoints changed. */
export function announceDataChange(
  bus: EventBus,
  organizationId: string,
  scope: DataChangedEvent["data"]["scope"],
): Promise<void> {
  return announce(bus, {
    id: newId(),
    type: EVENT.dataChanged,
    created_at: new Date().toISOString(),
    data: { organization_id: organizationId, scope },
  });
}
