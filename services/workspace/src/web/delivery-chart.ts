import { type Html, html } from "@newsroom/shared/html";

const HOUR_MS = 3_600_000;
export const CHART_HOURS = 24;

const OUTCOMES = [
  { status: "delivered", label: "Delivered", fill: "#1b6e35" },
  { status: "pending", label: "Pending", fill: "#8a5a00" },
  { status: "failed", label: "Failed", fill: "#a4161a" },
] as const;
type Outcome = (typeof OUTCOMES)[number]["status"];

export interface HourCount {
  /** Hours since the epoch. */
  hour: number;
  status: Outcome;
  count: number;
}

/** The start of the chart's first hour: the last 24 hours, the current one included. */
export function chartSince(now: Date): Date {
  return new Date((Math.floor(now.getTime() / HOUR_MS) - CHART_HOURS + 1) * HOUR_MS);
}

interface Bar {
  start: Date;
  counts: Record<Outcome, number>;
}

function barsOf(counts: HourCount[], now: Date): Bar[] {
  const first = Math.floor(chartSince(now).getTime() / HOUR_MS);
  const bars: Bar[] = Array.from({ length: CHART_HOURS }, (_, i) => ({
    start: new Date((first + i) * HOUR_MS),
    counts: { delivered: 0, pending: 0, failed: 0 },
  }));
  for (const row of counts) {
    const bar = bars[row.hour - first];
    if (bar) bar.counts[row.status] += row.count;
  }
  return bars;
}

const hourLabel = (at: Date) => `${at.toISOString().slice(11, 13)}:00`;

/**
 * The endpoint's deliveries of the last 24 hours by outcome, one stacked bar per hour (UTC): an
 * SVG drawn on the server, described in words, with the same numbers in a table beside it.
 */
export function deliveryChart(counts: HourCount[], now: Date): Html {
  const bars = barsOf(counts, now);
  const totals = { delivered: 0, pending: 0, failed: 0 };
  for (const bar of bars) for (const o of OUTCOMES) totals[o.status] += bar.counts[o.status];
  const highest = Math.max(
    1,
    ...bars.map((b) => b.counts.delivered + b.counts.pending + b.counts.failed),
  );
  const [width, height, left, bottom, step] = [520, 160, 32, 24, 20];
  const plot = height - bottom - 8;
  const summary = `In the last 24 hours: ${totals.delivered} delivered, ${totals.pending} pending, ${totals.failed} failed.`;

  const columns = bars.map((bar, i) => {
    let top = height - bottom;
    const x = left + i * step + 3;
    const parts = OUTCOMES.map((o) => {
      const n = bar.counts[o.status];
      if (n === 0) return "";
      const h = Math.max(1, Math.round((n / highest) * plot));
      top -= h;
      return html`<rect x="${x}" y="${top}" width="${step - 6}" height="${h}" fill="${o.fill}"></rect>`;
    });
    const tick =
      i % 6 === 0
        ? html`<text x="${x}" y="${height - 8}" font-size="10" fill="#4a5360">${hourLabel(bar.start)}</text>`
        : "";
    return html`${parts}${tick}`;
  });

  return html`<figure class="chart">
<svg role="img" aria-labelledby="chart-title chart-desc" viewBox="0 0 ${width} ${height}" width="100%" height="${height}" preserveAspectRatio="xMinYMin meet">
<title id="chart-title">Deliveries per hour, last 24 hours (UTC)</title>
<desc id="chart-desc">${summary}</desc>
<line x1="${left}" y1="${height - bottom}" x2="${width}" y2="${height - bottom}" stroke="#4a5360"></line>
<text x="0" y="16" font-size="10" fill="#4a5360">${highest}</text>
<text x="0" y="${height - bottom}" font-size="10" fill="#4a5360">0</text>
${columns}
</svg>
<details><summary>The chart as a table</summary>
<table><caption class="visually-hidden">Deliveries per hour, last 24 hours (UTC)</caption>
<thead><tr><th scope="col">Hour (UTC)</th>${OUTCOMES.map((o) => html`<th scope="col">${o.label}</th>`)}</tr></thead>
<tbody>${bars.map(
    (bar) =>
      html`<tr><th scope="row"><time datetime="${bar.start.toISOString()}">${bar.start.toISOString().slice(0, 13).replace("T", " ")}:00</time></th>${OUTCOMES.map(
        (o) => html`<td>${bar.counts[o.status]}</td>`,
      )}</tr>`,
  )}</tbody></table></details>
<figcaption>${summary}
<ul class="legend">${OUTCOMES.map(
    (o) =>
      html`<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${o.fill}"></rect></svg> ${o.label}</li>`,
  )}</ul></figcaption>
</figure>`;
}
