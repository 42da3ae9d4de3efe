import { afterAll, beforeAll, expect, test } from "bun:test";
import { KEY_SCOPES } from "@newsroom/shared/api-keys";
import { assets } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { insertOrganization, insertPublishedStory } from "@newsroom/shared/testing/builders";
import { clientApiFixture, type Fixture, makeKey, random } from "./support/fixture.ts";

/** A feed is public once given out: an uncleared asset's URL inside its text never shows. */
const UNCLEARED = "https://cdn.example.com/raw/feed-secret.png";
const CLEARED = "https://cdn.example.com/img/feed-cleared.png";

let f: Fixture;
let key: string;
beforeAll(async () => {
  f = await clientApiFixture();
  const slug = `assets-${random()}`;
  const org = await insertOrganization(f.db, { slug, name: "Assets", newsroomRunning: true });
  await f.db.insert(assets).values([
    { id: newId(), organizationId: org.id, url: UNCLEARED, cleared: false },
    { id: newId(), organizationId: org.id, url: CLEARED, cleared: true },
  ]);
  await insertPublishedStory(f.db, org.id, {
    type: "insight",
    slug: "with-assets",
    title: "Charts",
    summary: `Summary (${UNCLEARED}) and ${CLEARED}.`,
    body: [
      { type: "paragraph", text: `See ${UNCLEARED}. Then ${CLEARED} too.` },
      { type: "quote", text: `![chart](${UNCLEARED})` },
      { type: "list", items: [`one ${UNCLEARED}`, `two ${CLEARED}`] },
    ],
  });
  key = (await makeKey(f.db, org.id, KEY_SCOPES)).secret;
});
afterAll(() => f.close());

test("both feeds leave out an uncleared asset's URL and keep a cleared one's", async () => {
  for (const format of ["json", "xml"]) {
    const response = await f.get(`/v1/feed.${format}`, { key });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("Then");
    expect(text).not.toContain("feed-secret");
    expect(text).toContain(CLEARED);
  }
  const feed = await (await f.get("/v1/feed.json", { key })).json();
  expect(feed.items[0].summary).toBe(`Summary () and ${CLEARED}.`);
  expect(feed.items[0].content_text).toBe(
    `See . Then ${CLEARED} too.\n\n![chart]()\n\n- one \n- two ${CLEARED}`,
  );
});
