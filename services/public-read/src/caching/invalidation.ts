import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import { EVENT } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import type { ReadCache } from "./read-cache.ts";

/** The events that change what public routes show. */
export const INVALIDATING_EVENTS = [
  EVENT.storyPublished,
  EVENT.storyUnpublished,
  EVENT.siteChanged,
] as const;

/**
 * Drops cached answers of an organization when its stories are published or unpublished or its
 * sites change. A broadcast subscription: every replica sees every event.
 */
export function subscribeInvalidation(bus: EventBus, cache: ReadCache): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (!(INVALIDATING_EVENTS as readonly string[]).includes(event.type)) return;
      const organizationId = (event.data as { organization_id?: unknown }).organization_id;
      const dropped = cache.invalidate(typeof organizationId === "string" ? organizationId : null);
      log.debug("read cache invalidated", { event: event.type, dropped });
    },
    { durable: "public-read-cache", broadcast: true, types: INVALIDATING_EVENTS },
  );
}
