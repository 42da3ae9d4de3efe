import type { StoryType } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import { CARD_IMAGE_SIZES, imageTag } from "@newsroom/shared/image-tag";
import type { ContentSummaryOut } from "../content/model.ts";

const TYPE_LABELS: Record<StoryType, string> = {
  insight: "Insight",
  press_release: "Press release",
  announcement: "Announcement",
  in_the_news: "In the news",
  event: "Event",
  video: "Video",
};

export function typeLabel(type: StoryType): string {
  return TYPE_LABELS[type];
}

/** `22 November 2026`, in UTC (the same on every server). */
export function displayDate(iso: string): string {
  return new Date(iso).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

/** A list of items as cards, each heading at `level` (so headings stay in order). */
export function cards(items: ContentSummaryOut[], level: 2 | 3 = 3): Html {
  return html`<ul class="cards">${items.map((item) => card(item, level))}</ul>`;
}

function card(item: ContentSummaryOut, level: 2 | 3): Html {
  const title = item.title ?? item.slug;
  const heading =
    level === 2
      ? html`<h2><a href="${item.url}">${title}</a></h2>`
      : html`<h3><a href="${item.url}">${title}</a></h3>`;
  return html`<li class="card">
${item.image ? imageTag(item.image, { sizes: CARD_IMAGE_SIZES }) : ""}
<p class="meta">${typeLabel(item.type)} · <time datetime="${item.published_at}">${displayDate(item.published_at)}</time></p>
${heading}
${item.summary ? html`<p>${item.summary}</p>` : ""}
</li>`;
}
