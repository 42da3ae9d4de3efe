import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subscription } from "@newsroom/shared/bus/index";
import { auditEvents, previewLinks } from "@newsroom/shared/db/schema";
import { EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { hashPreviewToken } from "@newsroom/shared/preview-links";
import { eq } from "drizzle-orm";
import { startPreviewOpenedConsumer } from "../src/preview-links/opened-consumer.ts";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

/** A story of a new organization, approved (or left in `status`'s step). */
async function approvedStory(h: Harness, slug: string) {
  const { orgId, storyId } = await orgWithDraft(h, slug);
  await transition(h, storyId, "submit");
  await transition(h, storyId, "approve", { actor_role: "approver" });
  return { orgId, storyId };
}

function createLink(h: Harness, storyId: string, body: Record<string, unknown>) {
  return h.call("POST", `/stories/${storyId}/preview_links`, body);
}

describe("preview links through the internal API", () => {
  let h: Harness;
  let opened: Subscription;
  beforeAll(async () => {
    h = await workspaceHarness();
    opened = await startPreviewOpenedConsumer(h.database.db, h.bus);
  });
  afterAll(async () => {
    await opened.stop();
    await h.close();
  });

  test("a link of an approved story: the URL once, on the newsroom; only the token's hash kept", async () => {
    const { storyId, orgId } = await approvedStory(h, "armage");
    const created = await createLink(h, storyId, { label: "The Daily", expires_at: inDays(7) });
    expect(created.status).toBe(201);
    const body = created.body;
    expect(body.object).toBe("preview_link");
    expect(body.label).toBe("The Daily");
    expect(typeof body.created_at).toBe("string");
    // The house organization's link lives on the house newsroom.
    expect(body.url).toMatch(/^http:\/\/localhost:3000\/newsroom\/preview\/[A-Za-z0-9_-]{43}$/);
    const token = body.url.split("/").pop();
    const [row] = await h.database.db
      .select()
      .from(previewLinks)
      .where(eq(previewLinks.id, body.id));
    expect(row?.tokenHash).toBe(hashPreviewToken(token));
    expect(row?.organizationId).toBe(orgId);
    expect(JSON.stringify(row)).not.toContain(token);

    const list = await h.call("GET", `/stories/${storyId}/preview_links`);
    expect(list.body.data.map((link: { id: string }) => link.id)).toEqual([body.id]);
    expect(JSON.stringify(list.body)).not.toContain(token);
    expect(list.body.data[0].url).toBeUndefined();

    const revoked = await h.call("POST", `/preview_links/${body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const again = await h.call("POST", `/preview_links/${body.id}/revoke`);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const audit = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.subjectId, body.id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "preview_link.created",
      "preview_link.revoked",
    ]);
  });

  test("a hosted organization's link lives on its first enabled site; without one, on the house newsroom", async () => {
    const { storyId } = await approvedStory(h, "hosted-links");
    expect(
      (
        await h.call("POST", "/orgs/hosted-links/sites", {
          site: "old",
          name: "Old",
          publisher: "P",
          enabled: false,
        })
      ).status,
    ).toBe(201);
    // No enabled site yet: the house newsroom hosts it, under the organization's name.
    const onHouse = await createLink(h, storyId, { label: "Outlet", expires_at: inDays(3) });
    expect(onHouse.status).toBe(201);
    expect(onHouse.body.url).toMatch(
      /^http:\/\/localhost:3000\/newsroom\/preview\/[A-Za-z0-9_-]{43}$/,
    );
    await h.call("POST", "/orgs/hosted-links/sites", {
      site: "hosted-links",
      name: "Hosted",
      publisher: "P",
      enabled: true,
    });
    const created = await createLink(h, storyId, { label: "Outlet", expires_at: inDays(3) });
    expect(created.status).toBe(201);
    expect(created.body.url).toMatch(
      /^http:\/\/localhost:3000\/newsrooms\/hosted-links\/preview\/[A-Za-z0-9_-]{43}$/,
    );
  });

  test("expiry: a date-time with offset, ahead, at most 30 days; else 422 naming expires_at", async () => {
    const { storyId } = await approvedStory(h, "expiry-links");
    const hostedSite = { site: "expiry-links", name: "E", publisher: "P", enabled: true };
    await h.call("POST", "/orgs/expiry-links/sites", hostedSite);
    for (const expires_at of [
      inDays(-1),
      new Date(Date.now() - 1000).toISOString(),
      inDays(30.01),
      inDays(365),
      "2026-12-01T09:00:00",
      "tomorrow",
      "",
    ]) {
      const refused = await createLink(h, storyId, { label: "L", expires_at });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("validation_failed");
      expect(refused.body.error.fields.map((f: { field: string }) => f.field)).toContain(
        "expires_at",
      );
    }
    // Missing or not text: the schema's 422, naming the field too.
    for (const body of [{ label: "L" }, { label: "L", expires_at: 12345 }]) {
      const refused = await createLink(h, storyId, body);
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body.error.fields)).toContain("expires_at");
    }
    for (const label of ["", "   ", "x".repeat(101)]) {
      const refused = await createLink(h, storyId, { label, expires_at: inDays(1) });
      expect(refused.status).toBe(422);
    }
    const withOffset = new Date(Date.now() + 29 * DAY_MS).toISOString().replace("Z", "+00:00");
    expect((await createLink(h, storyId, { label: "L", expires_at: withOffset })).status).toBe(201);
    expect(
      (await createLink(h, storyId, { label: "x".repeat(100), expires_at: inDays(30) })).status,
    ).toBe(201);
    const rows = await h.database.db.select().from(previewLinks);
    expect(rows.filter((row) => row.storyId === storyId)).toHaveLength(2);
  });

  test("only approved or scheduled stories; unknown stories and links are 404", async () => {
    const { storyId } = await orgWithDraft(h, "draft-links");
    await h.call("POST", "/orgs/draft-links/sites", {
      site: "draft-links",
      name: "D",
      publisher: "P",
      enabled: true,
    });
    const draft = await createLink(h, storyId, { label: "L", expires_at: inDays(1) });
    expect(draft.status).toBe(409);
    expect(draft.body.error.code).toBe("invalid_transition");
    await transition(h, storyId, "submit");
    expect((await createLink(h, storyId, { label: "L", expires_at: inDays(1) })).status).toBe(409);
    await transition(h, storyId, "approve", { actor_role: "approver" });
    await transition(h, storyId, "schedule");
    expect((await createLink(h, storyId, { label: "L", expires_at: inDays(1) })).status).toBe(201);
    await transition(h, storyId, "publish");
    expect((await createLink(h, storyId, { label: "L", expires_at: inDays(1) })).status).toBe(409);
    expect((await createLink(h, newId(), { label: "L", expires_at: inDays(1) })).status).toBe(404);
    expect((await h.call("POST", `/preview_links/${newId()}/revoke`)).status).toBe(404);
    expect((await h.call("POST", "/preview_links/not-an-id/revoke")).status).toBe(404);
  });

  test("openings public reads announce are recorded on the link: first, last, count", async () => {
    const { storyId, orgId } = await approvedStory(h, "opened-links");
    await h.call("POST", "/orgs/opened-links/sites", {
      site: "opened-links",
      name: "O",
      publisher: "P",
      enabled: true,
    });
    const created = await createLink(h, storyId, { label: "L", expires_at: inDays(1) });
    const times = [
      "2026-01-02T10:00:00.000Z",
      "2026-01-01T10:00:00.000Z",
      "2026-01-03T10:00:00.000Z",
    ];
    for (const created_at of times) {
      await h.bus.publish({
        id: newId(),
        type: EVENT.previewLinkOpened,
        created_at,
        data: { organization_id: orgId, preview_link_id: created.body.id },
      });
    }
    // Another organization's id beside the link's changes nothing.
    await h.bus.publish({
      id: newId(),
      type: EVENT.previewLinkOpened,
      created_at: times[0]!,
      data: { organization_id: newId(), preview_link_id: created.body.id },
    });
    let link = (await h.call("GET", `/stories/${storyId}/preview_links`)).body.data[0];
    for (let i = 0; i < 50 && link.opened_count < 3; i++) {
      await Bun.sleep(50);
      link = (await h.call("GET", `/stories/${storyId}/preview_links`)).body.data[0];
    }
    expect(link.opened_count).toBe(3);
    expect(link.first_opened_at).toBe(times[1]);
    expect(link.last_opened_at).toBe(times[2]);
  });
});
