import type { EventBus } from "@newsroom/shared/bus/index";
import type { Queryable } from "@newsroom/shared/db/index";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { EVENT, type WebhookEndpointDisabledEvent } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import { and, desc, eq, isNotNull, ne } from "drizzle-orm";
import { ENDPOINT_DISABLED_ERROR } from "../delivery/store.ts";

const e = webhookEndpoints;
const d = webhookDeliveries;

/** Announcements per pass at most; the rest wait for the next pass. */
const BATCH = 100;

/**
 * Publishes `webhook_endpoint.disabled` for each endpoint disabled for failing whose
 * announcement is still owed (`disabled_announcement_id`, set in the disabling transaction), then
 * clears it. The event's id is that announcement id: a publish repeated after a failure carries
 * the same id, so JetStream drops the duplicate and the workspace's consumer records it once. A
 * failed publish throws and leaves the announcement owed; the periodic pass tries again.
 * Cross-tenant (every organization's endpoints), unless `only` names one endpoint.
 */
export async function announceDisabledEndpoints(
  db: Queryable,
  bus: EventBus,
  failedInARow: number,
  only?: { organizationId: string; endpointId: string },
): Promise<number> {
  const owed = await db
    .select({
      id: e.id,
      organizationId: e.organizationId,
      url: e.url,
      announcementId: e.disabledAnnouncementId,
      disabledAt: e.updatedAt,
      failures: e.consecutiveFailures,
    })
    .from(e)
    .where(
      and(
        isNotNull(e.disabledAnnouncementId),
        only
          ? and(eq(e.organizationId, only.organizationId), eq(e.id, only.endpointId))
          : undefined,
      ),
    )
    .limit(BATCH);
  for (const endpoint of owed) {
    const announcementId = endpoint.announcementId as string;
    const last = await lastFailureOf(db, endpoint.organizationId, endpoint.id);
    const event: WebhookEndpointDisabledEvent = {
      id: announcementId,
      type: EVENT.webhookEndpointDisabled,
      created_at: endpoint.disabledAt.toISOString(),
      data: {
        organization_id: endpoint.organizationId,
        endpoint_id: endpoint.id,
        url: endpoint.url,
        reason: "failing",
        failed_in_a_row: last?.gone ? endpoint.failures : failedInARow,
        last_error: last?.error ?? null,
        receiver_gone: last?.gone ?? false,
      },
    };
    await bus.publish(event);
    await db
      .update(e)
      .set({ disabledAnnouncementId: null })
      .where(
        and(
          eq(e.organizationId, endpoint.organizationId),
          eq(e.id, endpoint.id),
          eq(e.disabledAnnouncementId, announcementId),
        ),
      );
    log.info("webhook endpoint disabled: announced", {
      endpoint_id: endpoint.id,
      organization_id: endpoint.organizationId,
    });
  }
  return owed.length;
}

/**
 * Why the endpoint's last failed delivery gave up (not the stop of its disabling), and whether
 * its receiver answered `410 Gone`, which alone disables an endpoint.
 */
async function lastFailureOf(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<{ error: string | null; gone: boolean } | null> {
  const [row] = await db
    .select({ lastError: d.lastError, lastStatusCode: d.lastStatusCode })
    .from(d)
    .where(
      and(
        eq(d.organizationId, organizationId),
        eq(d.endpointId, endpointId),
        eq(d.status, "failed"),
        ne(d.lastError, ENDPOINT_DISABLED_ERROR),
      ),
    )
    .orderBy(desc(d.createdAt))
    .limit(1);
  return row ? { error: row.lastError, gone: row.lastStatusCode === 410 } : null;
}
