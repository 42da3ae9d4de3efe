import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Queryable } from "@newsroom/shared/db/index";
import { type BusEvent, EVENT } from "@newsroom/shared/events";
import { organizationTag } from "@newsroom/shared/http/public-answers";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { storyPurgeTags } from "./cache-tags.ts";
import { storyPlaces } from "./story-places-store.ts";

/** The events that change what public routes show. */
export const INVALIDATING_EVENTS = [
  EVENT.storyPublished,
  EVENT.storyUnpublished,
  EVENT.siteChanged,
  EVENT.assetCleared,
] as const;

/**
 * The tags an event changes, the same a CDN is told to purge: for a story published or
 * unpublished `storyPurgeTags` (its item, the lists, topics, search and sitemap that can show
 * it, in the house newsroom and on each site of its organization); for a site change the
 * site's tag (every answer of the site, its hostnames' included), or the whole organization's
 * answers when no site is named, plus the answers of no organization (an unknown site or
 * hostname, which the change may have made known); for an asset cleared the organization's
 * answers (any published story of it may name the asset, and left it out until now). Null when the event names nothing this
 * service shows.
 */
export async function invalidationTags(
  db: Queryable,
  houseOrg: string,
  event: BusEvent,
): Promise<string[] | null> {
  const data = event.data as { organization_id?: unknown; story_id?: unknown; site?: unknown };
  const organizationId = data.organization_id;
  if (typeof organizationId !== "string" || !isUuid(organizationId)) return null;
  if (event.type === EVENT.siteChanged) {
    // Known from the event alone: dropped before anything else runs, with no read.
    const site = typeof data.site === "string" ? data.site : null;
    return [
      site === null ? organizationTag(organizationId) : `site:${site}`,
      organizationTag(null),
    ];
  }
  if (event.type === EVENT.assetCleared) return [organizationTag(organizationId)];
  const storyId = data.story_id;
  if (typeof storyId !== "string" || !isUuid(storyId)) return [organizationTag(organizationId)];
  return storyPurgeTags(await storyPlaces(db, organizationId, storyId, houseOrg));
}

/**
 * The durable consumer that works out what each event changed: replicas share it, so each
 * event costs one read, however many replicas and gateways there are.
 */
export const PURGE_CONSUMER = "public-read-purge";

/**
 * For each story, site or asset event, the tags it changes, told once to every gateway replica as a
 * `cache.purged` event: the gateway's answer cache (the one cache of public answers) drops
 * exactly those answers. When the database cannot say where a story shows, the organization's answers
 * go (never every answer). A failed publish leaves the event unacked: the bus delivers it again.
 */
export function subscribePurges(
  bus: EventBus,
  deps: { db: Queryable; houseOrg: string },
  durable = PURGE_CONSUMER,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      const organizationId = (event.data as { organization_id?: unknown }).organization_id;
      let tags: string[] | null;
      try {
        tags = await invalidationTags(deps.db, deps.houseOrg, event);
      } catch (error) {
        tags = typeof organizationId === "string" ? [organizationTag(organizationId)] : null;
        log.warn("purge: could not read what changed; dropping the organization's answers", {
          event_id: event.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      // A story of an organization without a site and outside the house newsroom shows nowhere.
      if (!tags || tags.length === 0 || typeof organizationId !== "string") return;
      await bus.publish({
        // Derived from the event's: a redelivered event's purge is a duplicate the bus drops.
        id: `${event.id}.purge`,
        type: EVENT.cachePurged,
        created_at: new Date().toISOString(),
        data: { organization_id: organizationId, tags },
      });
    },
    { durable, types: INVALIDATING_EVENTS },
  );
}
