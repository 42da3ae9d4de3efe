import { type Html, html } from "@newsroom/shared/html";
import type { TopicPageOut } from "../content/model.ts";
import type { Brand } from "./brand.ts";
import { cards } from "./cards.ts";
import { queryLink } from "./index-page.ts";
import { layout } from "./layout.ts";

/** A topic: its published items, newest first, and "more". */
export function topicPage(brand: Brand, page: TopicPageOut, cursor?: string): Html {
  const more =
    page.has_more && page.next_cursor
      ? html`<a class="more" href="${queryLink({ cursor: page.next_cursor })}">More stories</a>`
      : "";
  const main = html`<p class="meta"><a href="${brand.home}">${brand.name}</a></p>
<h1>${page.topic.name}</h1>
${cards(page.items, 2)}
${more}`;
  return layout({
    brand,
    title: page.topic.name,
    description: `${page.topic.name}: stories from ${brand.publisher}.`,
    canonical: cursor ? `${page.topic.url}${queryLink({ cursor })}` : page.topic.url,
    main,
  });
}
