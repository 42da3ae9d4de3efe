import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import { EVENT, WEBHOOK_EVENT_TYPES } from "@newsroom/shared/events";
import type { ReadCache } from "./read-cache.ts";

/**
 * The events after which an organization's cached entries are dropped: the workspace's
 * `data.changed` (stories, keys, the organization, webhook endpoints) and `site.changed` (the
 * feeds' links), and the story events as a second signal.
 */
export const INVALIDATING_EVENTS = [EVENT.dataChanged, EVENT.siteChanged, ...WEBHOOK_EVENT_TYPES];

/**
 * Drops an organization's entries whenever the bus says its data changed. Every replica sees
 * every event (broadcast). The drop happens before the handler returns anything, so on the
 * in-process bus it is done in the microtask that delivers the event.
 */
export function dropOnChange(bus: EventBus, cache: ReadCache): Promise<Subscription> {
  return bus.subscribe(
    (event) => {
      cache.dropOrganization(event.data.organization_id);
      return Promise.resolve();
    },
    { durable: "client-api-cache", types: INVALIDATING_EVENTS, broadcast: true },
  );
}
