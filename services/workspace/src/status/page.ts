import { xmlText } from "@newsroom/shared/feed-formats/rss";
import { type Html, html } from "@newsroom/shared/html";
import { incidentLink } from "./incidents.ts";
import type { IncidentWithUpdates } from "./json.ts";
import { componentName, isClosedStatus, STATE_LABELS, STATUS_LABELS } from "./model.ts";
import type { ComponentView, DayBar, ServedSnapshot, StatusSnapshot } from "./snapshot.ts";

/**
 * The public status page: server-rendered, no script, one stylesheet of its own. Rendered from
 * the cached snapshot; with the database away, from the last one known, saying so.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function shortDay(day: string): string {
  const [, month, date] = day.split("-");
  return `${Number(date)} ${MONTHS[Number(month) - 1]}`;
}

/** `27 Nov 2026, 14:05 UTC`. */
export function dateTimeText(date: Date): string {
  const iso = date.toISOString();
  return `${shortDay(iso.slice(0, 10))} ${iso.slice(0, 4)}, ${iso.slice(11, 16)} UTC`;
}

function percent(share: number): string {
  const value = Math.floor(share * 1000) / 10;
  return `${value === 100 ? "100" : value.toFixed(1)}%`;
}

function barText(bar: DayBar): string {
  if (bar.uptime === null) return `${shortDay(bar.day)}: no data`;
  return `${shortDay(bar.day)}: ${percent(bar.uptime)} up`;
}

function barClass(bar: DayBar): string {
  if (bar.uptime === null) return "none";
  if (bar.worst === "major_outage") return "major";
  if (bar.worst === "partial_outage") return "partial";
  if (bar.worst === "degraded_performance") return "degraded";
  return "ok";
}

function stateClass(state: string): string {
  return `state-${state.replace(/_/g, "-")}`;
}

function componentBlock(component: ComponentView): Html {
  const headingId = `component-${component.id}`;
  return html`<li class="component">
  <div class="component-head">
    <h3 id="${headingId}">${component.name}</h3>
    <p class="state ${stateClass(component.state)}">${STATE_LABELS[component.state]}</p>
  </div>
  ${component.overrideNote ? html`<p class="note">${component.overrideNote}</p>` : ""}
  <ol class="bars" aria-label="${component.name}: the last 90 days">
    ${component.history.map(
      (bar) =>
        html`<li class="bar ${barClass(bar)}" title="${barText(bar)}"><span class="visually-hidden">${barText(bar)}</span></li>`,
    )}
  </ol>
  <p class="uptime-line"><span>90 days ago</span><span>${
    component.uptime === null ? "No data yet" : `${percent(component.uptime)} uptime`
  }</span><span>Today</span></p>
</li>`;
}

function updateList(entry: IncidentWithUpdates): Html {
  return html`<ol class="updates">
  ${entry.updates.map(
    (update) => html`<li>
    <p><strong>${STATUS_LABELS[update.status] ?? update.status}</strong>: ${update.body}</p>
    <p class="when"><time datetime="${update.createdAt.toISOString()}">${dateTimeText(update.createdAt)}</time>${
      update.components.length > 0
        ? html` · ${update.components.map((c) => componentName(c.id)).join(", ")}`
        : ""
    }</p>
  </li>`,
  )}
</ol>`;
}

function incidentBlock(entry: IncidentWithUpdates, level: "h2" | "h3" = "h3"): Html {
  const { incident } = entry;
  const title = html`<a href="/status/incidents/${incident.id}">${incident.name}</a>`;
  const heading = level === "h2" ? html`<h2>${title}</h2>` : html`<h3>${title}</h3>`;
  const window =
    incident.kind === "maintenance" && incident.scheduledFor && incident.scheduledUntil
      ? html`<p class="when">Scheduled for ${dateTimeText(incident.scheduledFor)} to ${dateTimeText(incident.scheduledUntil)}</p>`
      : "";
  return html`<article class="incident impact-${incident.impact}">
  ${heading}
  ${window}
  ${updateList(entry)}
</article>`;
}

function document(title: string, main: Html, served: ServedSnapshot): Html {
  const snapshot = served.snapshot;
  const stale =
    served.stale && snapshot
      ? html`<div class="notice" role="status"><p>We cannot reach our database; this is the status as of ${snapshot.takenAt.toISOString().slice(11, 16)} UTC.</p></div>`
      : served.stale
        ? html`<div class="notice" role="status"><p>We cannot reach our database, and have no status to show yet. Please try again in a minute.</p></div>`
        : "";
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/status/styles.css">
<link rel="alternate" type="application/atom+xml" title="Status history (Atom)" href="/status/history.atom">
<link rel="alternate" type="application/rss+xml" title="Status history (RSS)" href="/status/history.rss">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><p class="brand"><a href="/status">Newsroom status</a></p></header>
<main id="main" tabindex="-1">
${stale}
${main}
</main>
<footer>
<p>Feeds: <a href="/status/history.atom">Atom</a> · <a href="/status/history.rss">RSS</a> · <a href="/api/v2/summary.json">JSON</a></p>
</footer>
</body>
</html>`;
}

/**
 * The email subscription form (the forms service answers it with a 303 back here): after a post,
 * `?subscribed=1` says a confirmation link is on its way, `?subscribed=invalid` puts the error
 * beside the field.
 */
function subscribeForm(outcome: string | null = null): Html {
  const invalid = outcome === "invalid";
  return html`<section aria-labelledby="subscribe-heading" class="subscribe" id="subscribe">
<h2 id="subscribe-heading">Get updates</h2>
${outcome === "1" ? html`<p class="notice" role="status">Check your inbox: we sent you a link to confirm your subscription.</p>` : ""}
<form method="post" action="/v1/public/status/subscribe">
  <div class="field">
    <label for="subscribe-email">Email</label>
    <input id="subscribe-email" name="email" type="email" autocomplete="email" required${invalid ? html` aria-invalid="true" aria-describedby="subscribe-email-error"` : ""}>
    ${invalid ? html`<p class="field-error" id="subscribe-email-error">Enter an email address such as name@example.com.</p>` : ""}
  </div>
  <button type="submit">Subscribe</button>
</form>
<p>We email you to confirm first; every message has a link to unsubscribe. Or follow the <a href="/status/history.atom">Atom feed</a> or the <a href="/status/history.rss">RSS feed</a>.</p>
</section>`;
}

const PAST_DAYS = 14;

/** The status page itself. */
export function statusPage(
  served: ServedSnapshot,
  now = new Date(),
  subscribed: string | null = null,
): Html {
  const snapshot = served.snapshot;
  if (!snapshot) {
    return document(
      "Newsroom status",
      html`<h1>Newsroom status</h1>${subscribeForm(subscribed)}`,
      served,
    );
  }
  const since = now.getTime() - PAST_DAYS * 86_400_000;
  const past = snapshot.incidents.filter(
    (entry) => isClosedStatus(entry.incident.status) && entry.incident.createdAt.getTime() >= since,
  );
  const main = html`<h1>Newsroom status</h1>
<p class="banner indicator-${snapshot.indicator}">${snapshot.description}</p>
${
  snapshot.activeIncidents.length > 0
    ? html`<section aria-labelledby="active-heading"><h2 id="active-heading">Current incidents</h2>
${snapshot.activeIncidents.map((entry) => incidentBlock(entry))}</section>`
    : ""
}
${
  snapshot.openMaintenances.length > 0
    ? html`<section aria-labelledby="maintenance-heading"><h2 id="maintenance-heading">Scheduled maintenance</h2>
${snapshot.openMaintenances.map((entry) => incidentBlock(entry))}</section>`
    : ""
}
<section aria-labelledby="components-heading">
<h2 id="components-heading">Components</h2>
<ul class="components">${snapshot.components.map(componentBlock)}</ul>
</section>
<section aria-labelledby="past-heading">
<h2 id="past-heading">Past incidents</h2>
${
  past.length > 0
    ? past.map((entry) => incidentBlock(entry))
    : html`<p>No incidents in the last ${PAST_DAYS} days.</p>`
}
</section>
${subscribeForm(subscribed)}
<p class="when">Updated <time datetime="${snapshot.takenAt.toISOString()}">${dateTimeText(snapshot.takenAt)}</time>.</p>`;
  return document("Newsroom status", main, served);
}

/** One incident's page (its shortlink), or null when the snapshot does not hold it. */
export function incidentPage(served: ServedSnapshot, id: string): Html | null {
  const snapshot = served.snapshot;
  const entry = snapshot ? findEntry(snapshot, id) : undefined;
  if (!entry) return null;
  const { incident } = entry;
  const main = html`<p><a href="/status">Back to the status page</a></p>
<h1>${incident.name}</h1>
<p class="banner impact-${incident.impact}">${STATUS_LABELS[incident.status] ?? incident.status}${
    incident.components.length > 0
      ? html` · Affects ${incident.components.map((c) => componentName(c.id)).join(", ")}`
      : ""
  }</p>
${
  incident.kind === "maintenance" && incident.scheduledFor && incident.scheduledUntil
    ? html`<p class="when">Scheduled for ${dateTimeText(incident.scheduledFor)} to ${dateTimeText(incident.scheduledUntil)}</p>`
    : ""
}
<h2>Updates</h2>
${updateList(entry)}`;
  return document(`${incident.name} · Newsroom status`, main, served);
}

/** The page of an incident that is not among the recent ones. */
export function notFoundPage(served: ServedSnapshot): Html {
  return document(
    "No such incident · Newsroom status",
    html`<h1>No such incident</h1>
<p>There is no recent incident or maintenance at this address. <a href="/status">See the status page</a>.</p>`,
    served,
  );
}

export function findEntry(snapshot: StatusSnapshot, id: string): IncidentWithUpdates | undefined {
  return [...snapshot.incidents, ...snapshot.maintenances].find(
    (entry) => entry.incident.id === id,
  );
}

/** Every update of the recent incidents and maintenances, newest first: the feeds' entries. */
function feedEntries(snapshot: StatusSnapshot) {
  return [...snapshot.incidents, ...snapshot.maintenances]
    .flatMap((entry) => entry.updates.map((update) => ({ incident: entry.incident, update })))
    .sort((a, b) => b.update.createdAt.getTime() - a.update.createdAt.getTime())
    .slice(0, 100);
}

function entryTitle(name: string, status: string): string {
  return `${name}: ${STATUS_LABELS[status] ?? status}`;
}

/** Atom 1.0: each incident update an entry, linking to its incident's page. */
export function atomFeed(snapshot: StatusSnapshot, publicBaseUrl: string): string {
  const base = publicBaseUrl.replace(/\/+$/, "");
  const entries = feedEntries(snapshot);
  const updated = entries[0]?.update.createdAt ?? snapshot.updatedAt;
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
<id>${xmlText(`${base}/status`)}</id>
<title>Newsroom status: incident history</title>
<updated>${updated.toISOString()}</updated>
<link rel="alternate" type="text/html" href="${xmlText(`${base}/status`)}"/>
<link rel="self" type="application/atom+xml" href="${xmlText(`${base}/status/history.atom`)}"/>
<author><name>Newsroom</name></author>
${entries
  .map(
    ({ incident, update }) => `<entry>
<id>urn:uuid:${update.id}</id>
<title>${xmlText(entryTitle(incident.name, update.status))}</title>
<updated>${update.createdAt.toISOString()}</updated>
<published>${update.createdAt.toISOString()}</published>
<link rel="alternate" type="text/html" href="${xmlText(incidentLink(base, incident.id))}"/>
<content type="text">${xmlText(update.body)}</content>
</entry>`,
  )
  .join("\n")}
</feed>
`;
}

/** RSS 2.0: the same entries. */
export function rssFeed(snapshot: StatusSnapshot, publicBaseUrl: string): string {
  const base = publicBaseUrl.replace(/\/+$/, "");
  const entries = feedEntries(snapshot);
  const updated = entries[0]?.update.createdAt ?? snapshot.updatedAt;
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>Newsroom status: incident history</title>
<link>${xmlText(`${base}/status`)}</link>
<description>Incidents and scheduled maintenance of the newsroom service.</description>
<language>en</language>
<lastBuildDate>${updated.toUTCString()}</lastBuildDate>
<atom:link href="${xmlText(`${base}/status/history.rss`)}" rel="self" type="application/rss+xml"/>
${entries
  .map(
    ({ incident, update }) => `<item>
<title>${xmlText(entryTitle(incident.name, update.status))}</title>
<link>${xmlText(incidentLink(base, incident.id))}</link>
<guid isPermaLink="false">${update.id}</guid>
<pubDate>${update.createdAt.toUTCString()}</pubDate>
<description>${xmlText(update.body)}</description>
</item>`,
  )
  .join("\n")}
</channel>
</rss>
`;
}

export const STATUS_STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fff;line-height:1.5}
a{color:#0b4fa8}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
.top,main,footer{max-width:56rem;margin:0 auto;padding:1rem}
.top{border-bottom:1px solid #d0d0d0}
.brand{margin:0;font-weight:700}
.brand a{color:#1b1b1b;text-decoration:none}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:2rem 0 .75rem}
h3{font-size:1.05rem;margin:0}
.banner{padding:1rem;border-radius:.4rem;font-weight:700;background:#e6f4ea;color:#0d4a1f;border:1px solid #1e7b34}
.banner.indicator-minor{background:#fff4d6;color:#5c4400;border-color:#a77700}
.banner.indicator-major{background:#ffe8d6;color:#6b2a00;border-color:#b34700}
.banner.indicator-critical{background:#fde2e2;color:#7a0c0c;border-color:#b30000}
.banner.indicator-maintenance{background:#e3eefc;color:#0b3a75;border-color:#1f5fbf}
.field-error{color:#b42318;font-weight:600;margin:.25rem 0 0}
.notice{padding:.75rem 1rem;border:2px solid #a77700;background:#fff8e1;border-radius:.4rem;margin-bottom:1rem}
.components{list-style:none;margin:0;padding:0;border:1px solid #d0d0d0;border-radius:.4rem}
.component{padding:1rem;border-top:1px solid #d0d0d0}
.component:first-child{border-top:0}
.component-head{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;align-items:baseline}
.state{margin:0;font-weight:600}
.state-operational{color:#176b2c}
.state-degraded-performance{color:#6e5200}
.state-partial-outage{color:#8a3700}
.state-major-outage{color:#a00000}
.state-under-maintenance{color:#1a4f9c}
.note{margin:.25rem 0;color:#444}
.bars{display:flex;gap:1px;list-style:none;margin:.5rem 0 .25rem;padding:0;height:2rem}
.bar{flex:1 1 0;min-width:1px;border-radius:1px;background:#2e9e4f}
.bar.degraded{background:#d4a400}
.bar.partial{background:#e07000}
.bar.major{background:#c62828}
.bar.none{background:#c8c8c8}
.uptime-line{display:flex;justify-content:space-between;margin:0;font-size:.85rem;color:#555}
.incident{border-left:4px solid #a77700;padding:.25rem 0 .25rem 1rem;margin:1rem 0}
.incident.impact-critical,.incident.impact-major{border-left-color:#b30000}
.incident.impact-maintenance{border-left-color:#1f5fbf}
.updates{list-style:none;margin:.5rem 0;padding:0}
.updates li{margin:.5rem 0}
.updates p{margin:0}
.when{color:#555;font-size:.9rem}
.subscribe form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.field{display:flex;flex-direction:column;gap:.25rem}
.field label{font-weight:600}
input[type=email]{font:inherit;padding:.5rem;border:1px solid #767676;border-radius:.3rem;min-width:16rem;max-width:100%}
button{font:inherit;padding:.5rem 1rem;border:0;border-radius:.3rem;background:#0b4fa8;color:#fff;cursor:pointer}
footer{border-top:1px solid #d0d0d0;color:#444}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
@media (max-width:30rem){input[type=email]{min-width:0;width:100%}.subscribe form{display:block}.subscribe button{margin-top:.5rem}}
`;
