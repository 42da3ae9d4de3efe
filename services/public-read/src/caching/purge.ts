import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Queryable } from "@newsroom/shared/db/index";
import { EVENT } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import type { CdnPurger } from "./cdn-purge.ts";
import { INVALIDATING_EVENTS, invalidationTags } from "./invalidation.ts";

/**
 * The durable consumer name: replicas share it, so each event is worked out and purged once, not
 * once per replica (unlike the read cache's broadcast subscription, which every replica needs).
 */
export const PURGE_CONSUMER = "public-read-purge";
const STORY_EVENTS: readonly string[] = [EVENT.storyPublished, EVENT.storyUnpublished];

/**
 * For each story or site event: the tags it changes (`invalidationTags`, the same this
 * service's own cache drops), told once to every gateway replica as a `cache.purged` event, and
 * for a story event purged at the CDN when one is configured. A failed CDN purge is retried by the
 * purger and then logged; the event is acked either way, so a CDN that is down delays nothing
 * else. A failed database read or publish leaves the event unacked: the bus delivers it again.
 */
export function subscribePurges(
  bus: EventBus,
  deps: { db: Queryable; purger: CdnPurger | null; houseOrg: string },
  durable = PURGE_CONSUMER,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      const tags = await invalidationTags(deps.db, deps.houseOrg, event);
      const organizationId = (event.data as { organization_id?: unknown }).organization_id;
      if (!tags || typeof organizationId !== "string") {
        log.warn("dropping an event that names no organization", { event_id: event.id });
        return;
      }
      // A story of an organization without a site and outside the house newsroom shows nowhere.
      if (tags.length === 0) return;
      await bus.publish({
        // Derived from the event's: a redelivered event's purge is a duplicate the bus drops.
        id: `${event.id}.purge`,
        type: EVENT.cachePurged,
        created_at: new Date().toISOString(),
        data: { organization_id: organizationId, tags },
      });
      // The CDN knows only the Cache-Tag purge keys, not the organization tags of the caches.
      const cdnTags = tags.filter((tag) => !tag.startsWith("organization:"));
      if (!deps.purger || !STORY_EVENTS.includes(event.type) || cdnTags.length === 0) return;
      const purged = await deps.purger.purge(cdnTags);
      log.info("CDN purge", {
        event_id: event.id,
        provider: deps.purger.provider,
        tags: cdnTags.length,
        purged,
      });
    },
    { durable, types: INVALIDATING_EVENTS },
  );
}
