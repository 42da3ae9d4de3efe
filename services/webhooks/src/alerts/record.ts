import type { Queryable } from "@newsroom/shared/db/index";
import { webhookAlerts, webhookEndpoints } from "@newsroom/shared/db/schema";
import { EVENT, type OperationalEventType } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import { and, eq, gt, gte, ne, sql } from "drizzle-orm";
import { insertManyDeliveries } from "../fan-out/store.ts";
import { ALERT_QUIET_MS, disableThresholdAttempts, percentReached } from "./thresholds.ts";

const e = webhookEndpoints;
const a = webhookAlerts;

/** A failed attempt, as the transaction that records it knows it. */
export interface FailedAttemptFacts {
  delivery: {
    id: string;
    organizationId: string;
    endpointId: string;
    eventId: string;
    eventType: string;
  };
  /** The delivery's attempts so far, this one included. */
  attempts: number;
  statusCode: number | null;
  error: string | null;
  /** The delivery failed for good (its last attempt, or a 410). */
  final: boolean;
  /** This attempt disabled the endpoint: the announcement owed, and why. */
  disabled: { announcementId: string; failedInARow: number; gone: boolean } | null;
  maxAttempts: number;
  disableAfter: number;
  now: Date;
}

/**
 * The alerts a failed attempt raises, in the transaction that records it: the endpoint's run of
 * failed attempts grows (its row, locked here, orders every replica's recording of the same
 * endpoint), and the run may reach a failing threshold, exhaust a delivery or (already done by
 * the caller) disable the endpoint. Each alert is written once (`webhook_alerts_once_idx`) and
 * fanned out to the organization's other endpoints subscribed to it. Returns how many alerts it
 * raised.
 */
export async function raiseAlertsForFailedAttempt(
  tx: Queryable,
  facts: FailedAttemptFacts,
): Promise<number> {
  const { delivery, now } = facts;
  const [endpoint] = await tx
    .update(e)
    .set({
      failedAttemptsInARow: sql`${e.failedAttemptsInARow} + 1`,
      failingSince: sql`coalesce(${e.failingSince}, ${now.toISOString()}::timestamptz)`,
    })
    .where(and(eq(e.organizationId, delivery.organizationId), eq(e.id, delivery.endpointId)))
    .returning({
      url: e.url,
      status: e.status,
      failedInARow: e.failedAttemptsInARow,
      failingSince: e.failingSince,
      alertedPercent: e.failureAlertPercent,
    });
  if (!endpoint) return 0;
  const episode = endpoint.failingSince ?? now;
  const subject = {
    organizationId: delivery.organizationId,
    endpointId: delivery.endpointId,
    episode,
    now,
  };
  const common = { endpoint_id: delivery.endpointId, url: endpoint.url, last_error: facts.error };

  if (facts.disabled) {
    // Emailed through the disabling's own announcement (the same id); here only its webhooks.
    return raiseAlert(tx, subject, {
      id: facts.disabled.announcementId,
      type: EVENT.webhookEndpointDisabled,
      threshold: 0,
      announced: true,
      data: {
        ...common,
        reason: "failing",
        failed_in_a_row: facts.disabled.failedInARow,
        receiver_gone: facts.disabled.gone,
      },
    });
  }
  if (endpoint.status !== "enabled") return 0;

  let raised = 0;

  const thresholdAttempts = disableThresholdAttempts(facts.disableAfter, facts.maxAttempts);
  const reached = percentReached(endpoint.failedInARow, thresholdAttempts);
  if (reached > endpoint.alertedPercent) {
    await tx
      .update(e)
      .set({ failureAlertPercent: reached })
      .where(and(eq(e.organizationId, delivery.organizationId), eq(e.id, delivery.endpointId)));
    raised += await raiseAlert(tx, subject, {
      id: newId(),
      type: EVENT.webhookEndpointFailing,
      threshold: reached,
      announced: false,
      data: {
        ...common,
        threshold_percent: reached,
        failed_attempts_in_a_row: endpoint.failedInARow,
        disable_threshold_attempts: thresholdAttempts,
      },
    });
  }
  if (facts.final) {
    raised += await raiseAlert(tx, subject, {
      id: newId(),
      type: EVENT.webhookDeliveryExhausted,
      threshold: 0,
      announced: false,
      data: {
        ...common,
        delivery_id: delivery.id,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        attempts: facts.attempts,
        last_status_code: facts.statusCode,
      },
    });
  }
  return raised;
}

interface AlertSubject {
  organizationId: string;
  endpointId: string;
  episode: Date;
  now: Date;
}

interface NewAlert {
  id: string;
  type: OperationalEventType;
  threshold: number;
  /** Its bus event is published elsewhere (the disabling's announcement). */
  announced: boolean;
  data: Record<string, unknown>;
}

/**
 * Writes the alert unless this episode has it already, or (failing and exhausted) one as high was
 * raised within the quiet hour; then fans it out as an operational event to the organization's
 * other enabled endpoints subscribed to its type. 1 when written, else 0.
 */
async function raiseAlert(tx: Queryable, subject: AlertSubject, alert: NewAlert): Promise<number> {
  if (alert.type !== EVENT.webhookEndpointDisabled) {
    const [recent] = await tx
      .select({ id: a.id })
      .from(a)
      .where(
        and(
          eq(a.endpointId, subject.endpointId),
          eq(a.type, alert.type),
          gte(a.threshold, alert.threshold),
          gt(a.createdAt, new Date(subject.now.getTime() - ALERT_QUIET_MS)),
        ),
      )
      .limit(1);
    if (recent) return 0;
  }
  const [written] = await tx
    .insert(a)
    .values({
      id: alert.id,
      organizationId: subject.organizationId,
      endpointId: subject.endpointId,
      type: alert.type,
      threshold: alert.threshold,
      episode: subject.episode,
      data: alert.data,
      createdAt: subject.now,
      announcedAt: alert.announced ? subject.now : null,
    })
    .onConflictDoNothing()
    .returning({ id: a.id });
  if (!written) return 0;
  const subscribers = await tx
    .select({ id: e.id })
    .from(e)
    .where(
      and(
        eq(e.organizationId, subject.organizationId),
        eq(e.status, "enabled"),
        ne(e.id, subject.endpointId),
        sql`${e.events} @> ${JSON.stringify([alert.type])}::jsonb`,
      ),
    );
  await insertManyDeliveries(
    tx,
    subscribers.map((endpoint) => ({
      organizationId: subject.organizationId,
      endpointId: endpoint.id,
      event: {
        id: alert.id,
        type: alert.type,
        storyId: null,
        createdAt: subject.now,
        // The failing attempt's trace: an alert's deliveries join it.
        traceParent: activeTraceParent(),
        sequence: null,
      },
      // Not a story's event: nothing to keep in order.
      storyOrder: null,
    })),
    subject.now,
  );
  return 1;
}
