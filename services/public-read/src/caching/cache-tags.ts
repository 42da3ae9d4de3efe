/**
 * The purge keys of the public routes (`Cache-Tag`, comma-separated), built here only: the
 * routes call these for their answers, and `storyPurgeTags` builds a story's purge from the
 * same calls, so what a CDN is told to purge cannot drift from what the answers carry.
 */
const content = (id: string) => `content:${id}`;

/** The house newsroom's routes (`/v1/public/newsroom`, `/topics`, `/search`, `/sitemap`). */
export const houseTags = {
  index: (topic?: string) => ["newsroom-index", ...(topic ? [`topic:${topic}`] : [])],
  item: (id: string, relatedIds: string[]) => [content(id), ...relatedIds.map(content)],
  missingItem: () => ["newsroom-index"],
  topic: (slug: string) => [`topic:${slug}`],
  search: () => ["search"],
  sitemap: () => ["sitemap"],
};

/** A hosted newsroom's routes (`/v1/public/sites/{site}/...`, `/v1/public/hosts/{hostname}`). */
export const siteTags = {
  /** Carried by every answer of the site: purging it purges the whole site. */
  site: (site: string) => [`site:${site}`],
  index: (site: string, topic?: string) => [
    `site:${site}`,
    `site:${site}:newsroom-index`,
    ...(topic ? [`site:${site}:topic:${topic}`] : []),
  ],
  item: (site: string, id: string, relatedIds: string[]) => [
    `site:${site}`,
    content(id),
    ...relatedIds.map(content),
  ],
  missingItem: (site: string) => [`site:${site}`, `site:${site}:newsroom-index`],
  topic: (site: string, slug: string) => [`site:${site}`, `site:${site}:topic:${slug}`],
  sitemap: (site: string) => [`site:${site}`, `site:${site}:sitemap`],
  host: (site: string | null, hostname: string) => [
    ...(site ? [`site:${site}`] : []),
    `host:${hostname}`,
  ],
};

export interface StoryPlaces {
  /** The story's own id. */
  storyId: string;
  /** The slugs of its topics. */
  topics: string[];
  /** Whether its organization is the house (HOUSE_ORG). */
  house: boolean;
  /** The site slugs of its organization. */
  sites: string[];
  /**
   * The stories that name it as related: their items list it once published, so they change
   * even though their answers did not carry its `content:<id>` before.
   */
  relatedFrom?: string[];
}

/**
 * What a publish or unpublish of a story purges: the tags of every answer that can show it or
 * list it (its item, the pages it is related from, the index with and without each of its
 * topics, its topic pages, search and sitemap), in the house newsroom and on each of its
 * organization's sites, but not a site's site-wide tag (that would purge the whole site).
 */
export function storyPurgeTags(story: StoryPlaces): string[] {
  const tags = new Set<string>();
  const add = (list: string[]) => {
    for (const tag of list) tags.add(tag);
  };
  add((story.relatedFrom ?? []).map((id) => `content:${id}`));
  if (story.house) {
    add(houseTags.item(story.storyId, []));
    add(houseTags.missingItem());
    add(houseTags.index());
    for (const topic of story.topics) {
      add(houseTags.index(topic));
      add(houseTags.topic(topic));
    }
    add(houseTags.search());
    add(houseTags.sitemap());
  }
  for (const site of story.sites) {
    const siteWide = new Set(siteTags.site(site));
    const onSite = [
      ...siteTags.item(site, story.storyId, []),
      ...siteTags.missingItem(site),
      ...siteTags.index(site),
      ...story.topics.flatMap((topic) => [
        ...siteTags.index(site, topic),
        ...siteTags.topic(site, topic),
      ]),
      ...siteTags.sitemap(site),
    ];
    add(onSite.filter((tag) => !siteWide.has(tag)));
  }
  return [...tags];
}
