import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Embedded, embedded, newKey, random } from "../support/client-api-embedded.ts";

/** A flow across two services: the workspace seeds a sandbox; the client API serves it. */
let e: Embedded;
beforeAll(async () => {
  e = await embedded();
});
afterAll(() => e.close());

test("stories of a sandbox seed claim no approval decision", async () => {
  const slug = `sandbox-${random()}`;
  await e.workspace("POST", "/orgs", { slug, name: "Sandbox", sandbox: true });
  const seeded = await e.workspace("POST", `/orgs/${slug}/sandbox-seed`, { count: 16 });
  expect(seeded.status).toBe(200);
  const key = await newKey(e, slug, ["stories:read"]);
  const list = await (await e.get("/v1/stories?limit=100", key.secret)).json();
  expect(list.data).toHaveLength(16);
  const statuses = new Set(list.data.map((story: { status: string }) => story.status));
  for (const status of ["published", "approved", "rejected", "unpublished"]) {
    expect(statuses.has(status)).toBe(true);
  }
  for (const story of list.data) {
    const detail = await (await e.get(`/v1/stories/${story.id}`, key.secret)).json();
    expect(detail.approvals).toEqual([]);
  }
});
