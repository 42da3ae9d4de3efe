import type { EventBus } from "@newsroom/shared/bus/index";
import { type BusEvent, EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";

/**
 * Tells public reads' caches what changed, after the commit.
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

/** An uploaded asset was cleared: published pages that name it may now show it. */
export function announceAssetCleared(
  bus: EventBus,
  organizationId: string,
  assetId: string,
): Promise<void> {
  return announce(bus, {
    id: newId(),
    type: EVENT.assetCleared,
    created_at: new Date().toISOString(),
    data: { organization_id: organizationId, asset_id: assetId },
  });
}
