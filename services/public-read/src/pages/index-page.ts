import type { StoryType } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import type { NewsroomIndexOut } from "../content/model.ts";
import type { Brand } from "./brand.ts";
import { cards, typeLabel } from "./cards.ts";
import { layout } from "./layout.ts";

export interface IndexFilters {
  type?: StoryType;
  topic?: string;
  cursor?: string;
}

/** `?type=…&topic=…&cursor=…` with the given values, relative to the page itself. */
export function queryLink(filters: IndexFilters): string {
  const query = new URLSearchParams();
  if (filters.type) query.set("type", filters.type);
  if (filters.topic) query.set("topic", filters.topic);
  if (filters.cursor) query.set("cursor", filters.cursor);
  const text = query.toString();
  return text ? `?${text}` : "./";
}

function filterLink(label: string, href: string, current: boolean): Html {
  return html`<li><a href="${href}"${current ? html` aria-current="page"` : ""}>${label}</a></li>`;
}

/** The index: the featured set, type and topic filters, a page of items and "more". */
export function indexPage(brand: Brand, index: NewsroomIndexOut, filters: IndexFilters): Html {
  const filtered = Boolean(filters.type || filters.topic || filters.cursor);
  const self = (changes: IndexFilters) => queryLink({ ...filters, cursor: undefined, ...changes });
  const typeNav =
    index.types.length > 1
      ? html`<nav aria-label="Types"><ul class="filters">
${filterLink("All", self({ type: undefined }), !filters.type)}
${index.types.map((type) => filterLink(typeLabel(type), self({ type }), filters.type === type))}
</ul></nav>`
      : "";
  const topicNav =
    index.topics.length > 0
      ? html`<nav aria-label="Topics"><ul class="filters">
${index.topics.map((topic) => filterLink(topic.name, self({ topic: filters.topic === topic.slug ? undefined : topic.slug }), filters.topic === topic.slug))}
</ul></nav>`
      : "";
  const featured =
    !filtered && index.featured.length > 0
      ? html`<section aria-labelledby="featured-heading"><h2 id="featured-heading">Featured</h2>${cards(index.featured)}</section>`
      : "";
  const more =
    index.has_more && index.next_cursor
      ? html`<a class="more" href="${queryLink({ ...filters, cursor: index.next_cursor })}">More stories</a>`
      : "";
  const main = html`<h1>${brand.name}</h1>
${typeNav}
${topicNav}
${featured}
<section aria-labelledby="latest-heading"><h2 id="latest-heading">Latest</h2>
${index.items.length > 0 ? cards(index.items) : html`<p>Nothing published here yet.</p>`}
${more}
</section>`;
  return layout({
    brand,
    title: brand.name,
    description: `News from ${brand.publisher}.`,
    canonical: filtered ? `${brand.home}${queryLink(filters)}` : brand.home,
    main,
  });
}
