import { type FeedData, itemLink } from "./model.ts";

/** Characters XML 1.0 does not allow (controls, lone surrogates), removed rather than escaped. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(text: string): string {
  return text
    .replace(NOT_XML, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function cdata(text: string): string {
  return `<![CDATA[${text.replace(NOT_XML, "").replace(/]]>/g, "]]]]><![CDATA[>")}]]>`;
}

/** RFC 822 dates, as RSS 2.0 wants them. */
function rfc822(isoDate: string): string {
  return new Date(isoDate).toUTCString();
}

/** RSS 2.0 with the full body in `content:encoded`. */
export function renderRss(feed: FeedData): string {
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:atom="http://www.w3.org/2005/Atom">`,
    "<channel>",
    `<title>${xmlText(feed.title)}</title>`,
    `<link>${xmlText(feed.homePageUrl ?? feed.feedUrl)}</link>`,
    `<description>${xmlText(feed.description)}</description>`,
    `<language>${xmlText(feed.language)}</language>`,
    `<atom:link href="${xmlText(feed.feedUrl)}" rel="self" type="application/rss+xml"/>`,
  ];
  const newest = feed.items[0];
  if (newest) lines.push(`<lastBuildDate>${rfc822(newest.publishedAt)}</lastBuildDate>`);
  for (const entry of feed.items) {
    lines.push("<item>");
    if (entry.title !== null) lines.push(`<title>${xmlText(entry.title)}</title>`);
    const link = itemLink(entry);
    if (link) lines.push(`<link>${xmlText(link)}</link>`);
    lines.push(`<guid isPermaLink="false">${entry.id}</guid>`);
    lines.push(`<pubDate>${rfc822(entry.publishedAt)}</pubDate>`);
    if (entry.summary !== null) lines.push(`<description>${xmlText(entry.summary)}</description>`);
    lines.push(`<content:encoded>${cdata(entry.html)}</content:encoded>`);
    for (const topic of entry.topics) lines.push(`<category>${xmlText(topic)}</category>`);
    lines.push("</item>");
  }
  lines.push("</channel>", "</rss>");
  return `${lines.join("\n")}\n`;
}
