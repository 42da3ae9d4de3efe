import { type Html, html } from "@newsroom/shared/html";
import { ARTICLE_IMAGE_SIZES, imageTag } from "@newsroom/shared/image-tag";
import { renderBody } from "@newsroom/shared/story-body-html";
import type { ContentItemOut } from "../content/model.ts";
import type { Brand } from "./brand.ts";
import { cards, displayDate, typeLabel } from "./cards.ts";
import { absoluteUrl, layout } from "./layout.ts";

/** Where a person named on an item is listed: the item's People section. */
function personAnchor(index: number): string {
  return `person-${index + 1}`;
}

/**
 * schema.org NewsArticle: what search engines need of an item. An item without a cleared image
 * of its own (every `in_the_news` item: its body is empty) shows the publisher's logo; a person
 * named on it links to where the page lists them.
 */
export function newsArticle(brand: Brand, item: ContentItemOut): Record<string, unknown> {
  const image =
    item.image ?? item.assets.find((asset) => asset.kind === "image") ?? brand.logo ?? null;
  const publisher = {
    "@type": "Organization",
    name: brand.publisher,
    url: brand.home,
    ...(brand.logo
      ? { logo: { "@type": "ImageObject", url: absoluteUrl(brand.logo.url, brand.home) } }
      : {}),
  };
  return {
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    headline: (item.title ?? item.slug).slice(0, 110),
    ...(item.summary ? { description: item.summary } : {}),
    datePublished: item.published_at,
    dateModified: item.updated_at,
    author:
      item.people.length > 0
        ? item.people.map((person, index) => ({
            "@type": "Person",
            name: person.name,
            url: `${item.url}#${personAnchor(index)}`,
          }))
        : [{ "@type": "Organization", name: brand.publisher, url: brand.home }],
    publisher,
    ...(image ? { image: [absoluteUrl(image.url, item.url)] } : {}),
    mainEntityOfPage: { "@type": "WebPage", "@id": item.url },
  };
}

/** One item: its body from its blocks, cleared assets, people, related items. */
export function itemPage(
  brand: Brand,
  item: ContentItemOut,
  options: { preview?: string } = {},
): Html {
  const title = item.title ?? item.slug;
  const lead = item.image;
  const main = html`<article>
<p class="meta">${typeLabel(item.type)} · <time datetime="${item.published_at}">${displayDate(item.published_at)}</time>${item.topics.length > 0 ? html` · ${item.topics.map((topic, i) => html`${i > 0 ? ", " : ""}<a href="${brand.topicBase}/${topic.slug}">${topic.name}</a>`)}` : ""}</p>
<h1>${title}</h1>
${item.summary ? html`<p class="summary"><strong>${item.summary}</strong></p>` : ""}
${lead && !item.body.some((block) => (block.asset as { url?: string } | undefined)?.url === lead.url) ? html`<figure>${imageTag(lead, { sizes: ARTICLE_IMAGE_SIZES, lazy: false })}</figure>` : ""}
${item.external_url ? html`<p><a href="${item.external_url}" rel="noopener">Read the coverage</a></p>` : ""}
${renderBody(item.body)}
${
  item.people.length > 0
    ? html`<section aria-labelledby="people-heading"><h2 id="people-heading">People</h2><ul>${item.people.map((person, index) => html`<li id="${personAnchor(index)}">${person.name}${person.role ? html`, ${person.role}` : ""}</li>`)}</ul></section>`
    : ""
}
</article>
${
  item.related.length > 0
    ? html`<section aria-labelledby="related-heading"><h2 id="related-heading">Related</h2>${cards(item.related)}</section>`
    : ""
}`;
  return layout({
    brand,
    title,
    description: item.summary ?? title,
    canonical: item.url,
    main,
    ogType: "article",
    image: lead,
    jsonLd: newsArticle(brand, item),
    preview: options.preview,
  });
}
