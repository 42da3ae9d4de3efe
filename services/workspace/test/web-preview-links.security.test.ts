import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents, previewLinks } from "@newsroom/shared/db/schema";
import { hashPreviewToken } from "@newsroom/shared/preview-links";
import { eq } from "drizzle-orm";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

/**
 * Preview links on the story page: approvers, admins and owners create one (its address shown
 * once, on the page the 303 leads to), see when it was opened, and revoke it after a
 * confirmation; editors and viewers are refused (403) and another organization gets 404, with
 * nothing made or changed.
 */
describe("preview links in the web app", () => {
  let h: WebHarness;
  let house: Awaited<ReturnType<typeof orgWithMembers>>;
  let other: Awaited<ReturnType<typeof orgWithMembers>>;
  let approver: WebClient;
  let storyId: string;

  const db = () => h.runtime.database.db;
  const linksOf = (id: string) =>
    db().select().from(previewLinks).where(eq(previewLinks.storyId, id));

  beforeAll(async () => {
    h = await webHarness();
    house = await orgWithMembers(h, "armage", 0);
    other = await orgWithMembers(h, "other-links", 0);
    storyId = await storyInReview(h, "armage", "embargoed");
    await h.admin("POST", `/stories/${storyId}/transitions`, { action: "approve" });
    approver = await h.signedIn(house.members.approver);
  }, 120_000);
  afterAll(() => h?.close());

  test("an approver creates a link: the address once, then the list; revoking asks first", async () => {
    const page = await approver.get(`/app/stories/${storyId}`);
    expect(page.text).toContain("Preview links");
    expect(page.text).toContain(`action="/app/stories/${storyId}/preview-links"`);

    const created = await approver.post(`/app/stories/${storyId}/preview-links`, {
      label: "The Daily Planet",
      expires_on: day(7),
    });
    expect(created.status).toBe(303);
    const location = created.headers.get("location")!;
    expect(location).toMatch(/^\/app\/preview-links\/[0-9a-f-]{36}\/created$/);
    const shown = await approver.get(location);
    const url = /value="(http[^"]+\/newsroom\/preview\/[A-Za-z0-9_-]{43})"/.exec(shown.text)?.[1];
    expect(url).toBeDefined();
    const [row] = await linksOf(storyId);
    expect(row?.tokenHash).toBe(hashPreviewToken(url!.split("/").pop()!));
    expect(row?.createdBy).toStartWith("person:");
    // The end of the chosen day, UTC.
    expect(row?.expiresAt.toISOString()).toBe(new Date(`${day(8)}T00:00:00.000Z`).toISOString());
    // Shown once: a reload has no address.
    const reload = await approver.get(location);
    expect(reload.status).toBe(200);
    expect(reload.text).not.toContain(url!);
    expect(reload.text).toContain("not shown again");

    const listed = await approver.get(`/app/stories/${storyId}`);
    expect(listed.text).toContain("The Daily Planet");
    expect(listed.text).toContain(house.members.approver);
    expect(listed.text).not.toContain(url!);

    const revokePath = `/app/preview-links/${row!.id}/revoke`;
    const asked = await approver.get(revokePath);
    expect(asked.text).toContain('name="confirm" value="yes"');
    expect((await linksOf(storyId))[0]?.revokedAt).toBeNull();
    const revoked = await approver.post(revokePath, { confirm: "yes" });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe(
      `/app/stories/${storyId}?done=preview-link-revoked`,
    );
    expect((await linksOf(storyId))[0]?.revokedAt).not.toBeNull();
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.subjectId, row!.id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "preview_link.created",
      "preview_link.revoked",
    ]);
  });

  test("errors sit beside their field, and nothing is made", async () => {
    const before = (await linksOf(storyId)).length;
    await approver.get(`/app/stories/${storyId}`);
    for (const [fields, error] of [
      [{ label: "", expires_on: day(3) }, "Say who the link is for."],
      [{ label: "x".repeat(101), expires_on: day(3) }, "Keep it to 100 characters."],
      [{ label: "Outlet", expires_on: day(40) }, "at most 30 days"],
      [{ label: "Outlet", expires_on: day(-2) }, "The expiry must be ahead."],
      [{ label: "Outlet", expires_on: "soon" }, "Choose a day"],
    ] as const) {
      const refused = await approver.post(`/app/stories/${storyId}/preview-links`, fields);
      expect(refused.status).toBe(422);
      expect(refused.text).toContain(error);
      expect(refused.text).toContain('class="error"');
    }
    // Both wrong: each refusal beside its own field.
    const both = await approver.post(`/app/stories/${storyId}/preview-links`, {
      label: "",
      expires_on: day(45),
    });
    expect(both.status).toBe(422);
    expect(both.text).toContain('id="field-label-error"');
    expect(both.text).toContain('id="field-expires_on-error"');
    expect(await linksOf(storyId)).toHaveLength(before);
  });

  test("editors and viewers are refused (403); another organization gets 404; nothing changes", async () => {
    await approver.get(`/app/stories/${storyId}`);
    await approver.post(`/app/stories/${storyId}/preview-links`, {
      label: "Kept",
      expires_on: day(2),
    });
    const kept = (await linksOf(storyId)).find((link) => link.label === "Kept")!;
    const before = (await linksOf(storyId)).length;
    for (const role of ["editor", "viewer"] as const) {
      const person = await h.signedIn(house.members[role]);
      const page = await person.get(`/app/stories/${storyId}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain("Preview links");
      const create = await person.post(`/app/stories/${storyId}/preview-links`, {
        label: "Nope",
        expires_on: day(2),
      });
      expect(create.status).toBe(403);
      expect((await person.get(`/app/preview-links/${kept.id}/revoke`)).status).toBe(403);
      expect(
        (await person.post(`/app/preview-links/${kept.id}/revoke`, { confirm: "yes" })).status,
      ).toBe(403);
    }
    const stranger = await h.signedIn(other.members.owner);
    await stranger.get("/app/");
    const create = await stranger.post(`/app/stories/${storyId}/preview-links`, {
      label: "Nope",
      expires_on: day(2),
    });
    expect(create.status).toBe(404);
    expect((await stranger.get(`/app/preview-links/${kept.id}/created`)).status).toBe(404);
    expect(
      (await stranger.post(`/app/preview-links/${kept.id}/revoke`, { confirm: "yes" })).status,
    ).toBe(404);
    expect(await linksOf(storyId)).toHaveLength(before);
    expect((await linksOf(storyId)).find((link) => link.id === kept.id)?.revokedAt).toBeNull();
  });
});
