import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "@newsroom/shared/testing/eventually";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * A flow across services: a story published with the workspace web app's button is on the public
 * newsroom (the house one, or the organization's hosted site) at the address its page links, and
 * unpublishing there takes it off.
 */
describe("published in the workspace web app, on the public newsroom", () => {
  let h: WebHarness;
  let house: Awaited<ReturnType<typeof orgWithMembers>>;
  let owner: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    // HOUSE_ORG: its newsroom is the public one at /v1/public/newsroom and /newsroom/{slug}.
    house = await orgWithMembers(h, "armage", 0);
    owner = await h.signedIn(house.members.owner);
  }, 120_000);
  afterAll(() => h?.close());

  const slugsAt = async (path: string) => {
    const answer = await (await fetch(`${h.url}${path}`)).json();
    return (answer.items ?? []).map((item: { slug: string }) => item.slug) as string[];
  };

  /** Approves and publishes the story with the story page's buttons; answers the page after. */
  async function publishInTheApp(client: WebClient, id: string) {
    await client.get(`/app/stories/${id}`);
    expect((await client.post(`/app/stories/${id}/approve`)).status).toBe(303);
    await client.get(`/app/stories/${id}`);
    expect((await client.post(`/app/stories/${id}/publish`)).status).toBe(303);
    return client.get(`/app/stories/${id}?done=published`);
  }

  test("the house's story: its linked page serves, the newsroom lists it until it is unpublished", async () => {
    const id = await storyInReview(h, "armage", "from-the-browser");
    const page = await publishInTheApp(owner, id);
    const link = `${h.url}/newsroom/from-the-browser`;
    expect(page.text).toContain(`href="${link}"`);
    expect((await fetch(link)).status).toBe(200);
    expect(await slugsAt("/v1/public/newsroom")).toContain("from-the-browser");

    await owner.get(`/app/stories/${id}`);
    const unpublished = await owner.post(`/app/stories/${id}/unpublish`, { confirm: "yes" });
    expect(unpublished.status).toBe(303);
    await eventually(
      async () => !(await slugsAt("/v1/public/newsroom")).includes("from-the-browser"),
      { message: "the story gone from the newsroom", timeoutMs: 10_000 },
    );
  });

  test("a client organization's story: its hosted site serves and lists it", async () => {
    const client = await orgWithMembers(h, "client-pub", 0);
    await h.admin("POST", "/orgs/client-pub/sites", {
      site: "client-pub-site",
      name: "Client news",
      publisher: "Client",
      enabled: true,
    });
    const id = await storyInReview(h, "client-pub", "client-story");
    const page = await publishInTheApp(await h.signedIn(client.members.owner), id);
    const link = `${h.url}/newsrooms/client-pub-site/client-story`;
    expect(page.text).toContain(`href="${link}"`);
    expect((await fetch(link)).status).toBe(200);
    expect(await slugsAt("/v1/public/sites/client-pub-site/newsroom")).toContain("client-story");
  });
});
