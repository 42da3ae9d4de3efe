import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { EVENT } from "@newsroom/shared/events";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { storyPurgeTags } from "./cache-tags.ts";
import type { CdnPurger } from "./cdn-purge.ts";
import { storyPlaces } from "./story-places-store.ts";

/**
 * The durable consumer name: replicas share it, so each story event is purged once, not once
 * per replica (unlike the gateway's broadcast purge subscription, which every replica needs).
 */
export const CDN_PURGE_CONSUMER = "public-read-cdn-purge";
const PURGING_EVENTS = [EVENT.storyPublished, EVENT.storyUnpublished] as const;

/**
 * Purges at the CDN the tags of a story published or unpublished. A failed purge is retried
 * by the purger and then logged; the event is acked either way, so a CDN that is down delays
 * nothing else. A failed database read leaves the event unacked: the bus delivers it again.
 */
export function subscribeCdnPurge(
  bus: EventBus,
  deps: { db: Db; purger: CdnPurger; houseOrg: string },
  durable = CDN_PURGE_CONSUMER,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      const data = event.data as { organization_id?: unknown; story_id?: unknown };
      const { organization_id: organizationId, story_id: storyId } = data;
      if (
        typeof organizationId !== "string" ||
        !isUuid(organizationId) ||
        typeof storyId !== "string" ||
        !isUuid(storyId)
      ) {
        log.warn("dropping a story event without organization and story", { event_id: event.id });
        return;
      }
      const places = await storyPlaces(deps.db, organizationId, storyId, deps.houseOrg);
      const tags = storyPurgeTags(places);
      const purged = await deps.purger.purge(tags);
      log.info("CDN purge", {
        event_id: event.id,
        provider: deps.purger.provider,
        tags: tags.length,
        purged,
      });
    },
    { durable, types: PURGING_EVENTS },
  );
}
