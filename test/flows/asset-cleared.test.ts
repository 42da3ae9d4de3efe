import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "@newsroom/shared/testing/eventually";
import { pngImage, uploadForm } from "../../services/workspace/test/support/images.ts";
import { orgWithMembers, type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * A flow across services: a story published while its image is uncleared is kept by the
 * gateway's answer cache without the image; clearing the asset (an `asset.cleared` event, which
 * public-read turns into a purge of the organization's answers) brings the image to the kept
 * page, with its srcset, without publishing the story again.
 */
describe("clearing an image reaches pages already published", () => {
  let h: WebHarness;

  beforeAll(async () => {
    h = await webHarness();
    // HOUSE_ORG: its newsroom is the public one at /newsroom/{slug}.
    await orgWithMembers(h, "armage", 0);
  }, 120_000);
  afterAll(() => h?.close());

  test("the kept public page shows the image once it is cleared", async () => {
    const uploaded = await fetch(`${h.embedded.workspaceUrl}/internal/v1/orgs/armage/assets`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}` },
      body: uploadForm({ bytes: await pngImage(1200, 800), name: "quay.png" }, { alt: "The quay" }),
    });
    expect(uploaded.status).toBe(201);
    const asset = (await uploaded.json()) as { id: string; variants: { url: string }[] };
    const created = await h.admin("POST", "/orgs/armage/stories", {
      type: "press_release",
      slug: "the-quay",
      title: "The quay reopens",
      body: [
        { type: "paragraph", text: "Boats are back." },
        { type: "image", asset_id: asset.id },
      ],
    });
    const id = created.body.id as string;
    for (const action of ["submit", "approve", "publish"]) {
      expect((await h.admin("POST", `/stories/${id}/transitions`, { action })).status).toBe(200);
    }

    const page = `${h.url}/newsroom/the-quay`;
    await eventually(async () => (await fetch(page)).status === 200, {
      message: "the story on the public page",
      timeoutMs: 10_000,
    });
    const kept = await fetch(page);
    expect(kept.headers.get("age")).not.toBeNull();
    const before = await kept.text();
    expect(before).toContain("Boats are back.");
    expect(before).not.toContain("srcset");
    expect(before).not.toContain(asset.variants[0]!.url);

    const cleared = await fetch(`${h.embedded.workspaceUrl}/internal/v1/assets/${asset.id}/clear`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}` },
    });
    expect(cleared.status).toBe(200);
    await eventually(
      async () => {
        const text = await (await fetch(page)).text();
        return text.includes("srcset") && text.includes(asset.variants[0]!.url);
      },
      { message: "the cleared image on the kept public page", timeoutMs: 10_000 },
    );
  }, 60_000);
});
