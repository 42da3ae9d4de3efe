import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { clientApiFixture, type Fixture, type OrgData } from "./support/fixture.ts";

let f: Fixture;
beforeAll(async () => {
  f = await clientApiFixture();
});
afterAll(async () => {
  await f.close();
});

const LISTS = [
  "/v1/stories?limit=100",
  "/v1/approvals?limit=100",
  "/v1/webhook_endpoints",
  "/v1/webhook_deliveries?limit=100",
];

/** Every id-like value in a body. */
function idsIn(value: unknown): string[] {
  return (
    JSON.stringify(value).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ??
    []
  );
}

function ownIds(org: OrgData): Set<string> {
  return new Set([...org.storyIds, ...org.endpointIds, ...org.deliveryIds]);
}

describe("two organizations with the same data", () => {
  for (const [self, other] of [
    ["a", "b"],
    ["b", "a"],
  ] as const) {
    test(`organization ${self.toUpperCase()} sees only its own rows on every route`, async () => {
      const me = f[self];
      const them = f[other];
      const allowed = ownIds(me);
      for (const path of [...LISTS, "/v1/feed.json"]) {
        const response = await f.get(path, { key: me.key });
        expect(response.status).toBe(200);
        const body = await response.json();
        const ids = idsIn(body).filter((id) => !allowed.has(id));
        // Event ids of deliveries are random and belong to nobody else; none is another org's row.
        for (const id of ids) expect(ownIds(them).has(id)).toBe(false);
      }
      for (const id of me.storyIds) {
        expect((await f.get(`/v1/stories/${id}`, { key: me.key })).status).toBe(200);
      }
      for (const id of them.storyIds) {
        expect((await f.get(`/v1/stories/${id}`, { key: me.key })).status).toBe(404);
      }
      const rss = await (await f.get("/v1/feed.xml", { key: me.key })).text();
      for (const id of ownIds(them)) expect(rss).not.toContain(id);
      const deliveries = await (
        await f.get(`/v1/webhook_deliveries?endpoint_id=${them.endpointIds[0]}`, { key: me.key })
      ).json();
      expect(deliveries.data).toEqual([]);
    });
  }

  test("the same slugs exist in both organizations, so isolation is by organization, not by chance", async () => {
    const a = await (await f.get("/v1/stories?status=published", { key: f.a.key })).json();
    const b = await (await f.get("/v1/stories?status=published", { key: f.b.key })).json();
    const slugs = (list: { data: { slug: string }[] }) => list.data.map((s) => s.slug).sort();
    expect(slugs(a)).toEqual(slugs(b));
    expect(a.data.map((s: { id: string }) => s.id).sort()).toEqual([...f.a.published].sort());
    expect(b.data.map((s: { id: string }) => s.id).sort()).toEqual([...f.b.published].sort());
  });
});
