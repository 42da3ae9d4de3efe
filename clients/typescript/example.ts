/**
 * A small client written against the types openapi-typescript generates from
 * gateway/openapi.json (`npm test` generates them into clients/typescript/api.d.ts and
 * type-checks this file): if a route or a record changes shape, this stops compiling.
 */
import type { components, paths } from "./api.d.ts";

type Story = components["schemas"]["Story"];
type StoryList = paths["/v1/stories"]["get"]["responses"]["200"]["content"]["application/json"];
type NewsroomIndex =
  paths["/v1/public/newsroom"]["get"]["responses"]["200"]["content"]["application/json"];
type IndexQuery = NonNullable<paths["/v1/public/newsroom"]["get"]["parameters"]["query"]>;

export async function listStories(baseUrl: string, key: string, cursor?: string): Promise<Story[]> {
  const url = new URL("/v1/stories", baseUrl);
  if (cursor) url.searchParams.set("cursor", cursor);
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const page = (await response.json()) as StoryList;
  return page.data;
}

export async function newsroom(baseUrl: string, query: IndexQuery): Promise<NewsroomIndex> {
  const url = new URL("/v1/public/newsroom", baseUrl);
  if (query.type) url.searchParams.set("type", query.type);
  if (query.topic) url.searchParams.set("topic", query.topic);
  const response = await fetch(url);
  return (await response.json()) as NewsroomIndex;
}

export function titleOf(story: Story): string {
  return story.title ?? story.slug;
}
