import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { EVENT, type StoryEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { applyStoryAction, type StoryAction } from "@newsroom/shared/testing/builders";

/**
 * The events this service reads, put on the bus as the workspace puts them there (the contract
 * is shared/src/events.ts): a story event once its transition commits, as the outbox relay
 * publishes it, and a site change after a site, hostname or organization edit.
 */

/** Takes a story through an action and publishes the action's event; the event, if any. */
export async function storyActionOnBus(
  db: Db,
  bus: EventBus,
  storyId: string,
  action: StoryAction,
): Promise<StoryEvent | null> {
  const { event } = await applyStoryAction(db, storyId, action);
  if (event) await bus.publish(event);
  return event;
}

export async function announceSiteChange(
  bus: EventBus,
  organizationId: string,
  site: string | null,
): Promise<void> {
  await bus.publish({
    id: newId(),
    type: EVENT.siteChanged,
    created_at: new Date().toISOString(),
    data: { organization_id: organizationId, site },
  });
}
