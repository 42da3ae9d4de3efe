import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { EVENT } from "@newsroom/shared/events";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { recordPreviewOpened } from "./service.ts";

/** The durable consumer of `preview_link.opened`: every replica shares it. */
export const PREVIEW_OPENED_CONSUMER = "workspace-preview-link-opened";

/**
 * Hears public reads announce that a preview link was opened and records it on the link: the
 * workspace stays the one writer of `preview_links`. Delivery is at least once, so a redelivered
 * event can count one opening twice; the times stay right (earliest first, latest last).
 */
export function startPreviewOpenedConsumer(db: Db, bus: EventBus): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (event.type !== EVENT.previewLinkOpened) return;
      const { organization_id, preview_link_id } = event.data;
      const at = new Date(event.created_at);
      if (!isUuid(organization_id) || !isUuid(preview_link_id) || Number.isNaN(at.getTime())) {
        log.warn("dropping a malformed preview_link.opened event", { event_id: event.id });
        return;
      }
      await recordPreviewOpened(db, organization_id, preview_link_id, at);
    },
    { durable: PREVIEW_OPENED_CONSUMER, types: [EVENT.previewLinkOpened] },
  );
}
