import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import { EVENT, type StatusIncidentUpdatedEvent } from "@newsroom/shared/events";
import { html } from "@newsroom/shared/html";
import { log } from "@newsroom/shared/log";
import { isWellFormedStatusEvent } from "@newsroom/shared/status-events";
import type { FormsDeps } from "../deps.ts";
import type { Issue } from "../mailings/issue.ts";
import type { MailingList } from "../mailings/lists.ts";
import { type CopyCounts, sendCopies } from "../mailings/send-copies.ts";
import { STATUS_BRAND, statusUnsubscribe } from "./list.ts";
import { countStatusSubscribers, statusSubscribersAfter } from "./store.ts";

/** The durable consumer of `status.incident_updated`: every replica shares it. */
export const STATUS_UPDATES_CONSUMER = "forms-status-updates";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a copy's record is kept: longer than the bus keeps an event to deliver again. */
const RECORD_DAYS = 35;
const PAGE_SIZE = 200;

type Update = StatusIncidentUpdatedEvent["data"];

/**
 * Emails each update of an incident or maintenance to every confirmed subscriber of the status
 * page: one copy per subscriber and update, claimed before it is sent (`sendCopies`, the
 * digest's once-per-reader records), so a redelivered event sends nothing more. A copy the
 * provider refused is given back and the event is not acked: the bus delivers it again and only
 * the refused copies go out then.
 */
export function startStatusUpdatesConsumer(deps: FormsDeps, bus: EventBus): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (event.type !== EVENT.statusIncidentUpdated) return;
      if (!isWellFormedStatusEvent(event)) {
        const id = (event as { id?: unknown }).id;
        log.warn("dropping a malformed status.incident_updated event", { event_id: id });
        return;
      }
      await emailStatusUpdate(deps, event);
    },
    { durable: STATUS_UPDATES_CONSUMER, types: [EVENT.statusIncidentUpdated] },
  );
}

/** Sends the update to every subscriber (at most once each); throws while copies are owed. */
export async function emailStatusUpdate(
  deps: FormsDeps,
  event: StatusIncidentUpdatedEvent,
): Promise<CopyCounts> {
  const run: CopyCounts = {
    subscribers: 0,
    sent: 0,
    already_sent: 0,
    failed: 0,
    unconfirmed: 0,
    stopped: false,
  };
  if (!deps.mailer) {
    log.warn("status update not emailed: email is not configured", { event_id: event.id });
    return run;
  }
  await sendCopies(
    {
      db: deps.db,
      mailer: deps.mailer,
      now: deps.now,
      list: statusList(deps),
      issue: composeUpdate(event.data),
      fromName: STATUS_BRAND,
      // The copies' key: the update (an event published again has the same update).
      week: event.data.update.id,
      recordUntil: new Date(deps.now().getTime() + RECORD_DAYS * DAY_MS),
    },
    run,
  );
  log.info("status update emailed", { event_id: event.id, ...run });
  if (run.failed > 0 || run.stopped) {
    throw new Error(`status update ${event.data.update.id}: ${run.failed} copies refused`);
  }
  return run;
}

/** The status page's subscribers, each copy with its signed unsubscribe link. */
function statusList(deps: FormsDeps): MailingList {
  return {
    routeOf: (update) => `status:${update}`,
    reason: "You receive this because you subscribed to updates of our status page.",
    count: () => countStatusSubscribers(deps.db),
    async *readers() {
      let after: string | null = null;
      for (;;) {
        const page = await statusSubscribersAfter(deps.db, after, PAGE_SIZE);
        if (page.length === 0) return;
        after = page[page.length - 1]!.id;
        yield page.map(({ id, email }) => ({ email, key: `status:${id}` }));
      }
    },
    unsubscribeOf: (reader) => statusUnsubscribe(deps.config, reader.key.slice("status:".length)),
  };
}

/** "identified" → "Identified", "in_progress" → "In progress". */
export function statusLabel(status: string): string {
  const words = status.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The email of one update, the same for every subscriber: `[Status] Incident name`. */
export function composeUpdate({ incident, update }: Update): Issue {
  const subject = `[${statusLabel(update.status)}] ${incident.name}`;
  const affected = incident.components.map((c) => `${c.name} (${statusLabel(c.status)})`);
  const kind = incident.kind === "maintenance" ? "Scheduled maintenance" : "Incident";
  const text = [
    `${kind}: ${incident.name}`,
    `Status: ${statusLabel(update.status)}`,
    `Impact: ${statusLabel(incident.impact)}`,
    ...(affected.length > 0 ? [`Affected: ${affected.join(", ")}`] : []),
    "",
    update.body,
    "",
    `Posted ${update.created_at}. Follow it: ${incident.shortlink}`,
    "",
  ].join("\n");
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2328;">
<p style="margin: 0; color: #57606a;">${kind}</p>
<h1 style="font-size: 1.25rem; margin: 0 0 0.5rem;">${incident.name}</h1>
<p><strong>${statusLabel(update.status)}</strong>: ${update.body}</p>
${affected.length > 0 ? html`<p>Affected: ${affected.join(", ")}</p>` : ""}
<p><a href="${incident.shortlink}">Follow this ${kind.toLowerCase()} on the status page</a></p>`;
  return { subject, text, html: body };
}
