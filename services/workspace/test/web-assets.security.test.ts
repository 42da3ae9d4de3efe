import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets } from "@newsroom/shared/db/schema";
import { type BusEvent, EVENT } from "@newsroom/shared/events";
import { eventually } from "@newsroom/shared/testing/eventually";
import { count } from "drizzle-orm";
import sharp from "sharp";
import { jpegWithGps, pngImage, uploadForm } from "./support/images.ts";
import { orgWithMembers, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * The Images page: editors upload (errors beside the fields), approvers clear, viewers and other
 * organizations are refused with nothing stored; uploads show to the organization's members
 * only, never cached.
 */
describe("images in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let other: Awaited<ReturnType<typeof orgWithMembers>>;
  let editor: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "pictures", 0);
    other = await orgWithMembers(h, "elsewhere", 0);
    editor = await h.signedIn(org.members.editor);
  }, 120_000);
  afterAll(() => h?.close());

  const assetsPath = "/app/orgs/pictures/assets";
  const storedCount = async () => {
    const [row] = await h.runtime.database.db.select({ n: count() }).from(assets);
    return row?.n ?? 0;
  };

  /** Posts the upload form as a browser does, with the client's cookies and CSRF token. */
  async function upload(client: WebClient, path: string, form: FormData) {
    await client.get(path);
    form.append("_csrf", client.csrf);
    const response = await fetch(client.base + path, {
      method: "POST",
      headers: {
        cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        origin: client.base,
        "x-forwarded-for": client.ip,
      },
      body: form,
      redirect: "manual",
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  test("an editor uploads; the image is uncleared, shown to members only and never cached", async () => {
    const page = await editor.get(assetsPath);
    expect(page.status).toBe(200);
    expect(page.text).toContain('enctype="multipart/form-data"');
    expect(page.text).toContain(`href="${assetsPath}"`);
    const answer = await upload(
      editor,
      assetsPath,
      uploadForm({ bytes: await jpegWithGps(1000, 600), name: "harbour.jpg" }),
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`${assetsPath}?done=uploaded`);
    const list = await editor.get(`${assetsPath}?done=uploaded`);
    expect(list.text).toContain("The image was uploaded.");
    expect(list.text).toContain("uncleared");
    // Only approvers, admins and owners clear.
    expect(list.text).not.toContain("Clear for publication");
    const thumbnail = /<img src="(\/app\/assets\/[^"]+)" width="160" height="(\d+)"/.exec(
      list.text,
    );
    expect(thumbnail).not.toBeNull();
    expect(thumbnail![2]).toBe("267"); // upright: 600 × 1000
    const image = await fetch(editor.base + thumbnail![1], {
      headers: { cookie: [...editor.cookies].map(([n, v]) => `${n}=${v}`).join("; ") },
    });
    expect(image.status).toBe(200);
    expect(image.headers.get("cache-control")).toBe("private, no-store");
    const meta = await sharp(new Uint8Array(await image.arrayBuffer())).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();
    // Signed out, or signed in elsewhere: not shown.
    expect((await fetch(editor.base + thumbnail![1], { redirect: "manual" })).status).toBe(303);
    const stranger = await h.signedIn(other.members.owner);
    expect((await stranger.get(thumbnail![1]!)).status).toBe(404);
  });

  test("refused files and missing alt text: errors beside their fields, nothing stored", async () => {
    const before = await storedCount();
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const refused = await upload(
      editor,
      assetsPath,
      uploadForm({ bytes: svg, name: "logo.png" }, { alt: "", credit: "Kept credit" }),
    );
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="field-file-error"');
    expect(refused.text).toContain("JPEG, PNG, WebP or AVIF");
    expect(refused.text).toContain('id="field-alt-error"');
    expect(refused.text).toContain('value="Kept credit"');
    expect(await storedCount()).toBe(before);
  });

  test("a viewer and another organization's editor are refused, nothing stored", async () => {
    const before = await storedCount();
    const viewer = await h.signedIn(org.members.viewer);
    const form = () => uploadForm({ bytes: new Uint8Array(0), name: "x.png" });
    const byViewer = await upload(viewer, assetsPath, form());
    expect(byViewer.status).toBe(403);
    const outsider = await h.signedIn(other.members.editor);
    await outsider.get("/app/orgs/elsewhere/assets");
    const pngBytes = await pngImage();
    const byOutsider = await fetch(`${outsider.base}${assetsPath}`, {
      method: "POST",
      headers: {
        cookie: [...outsider.cookies].map(([n, v]) => `${n}=${v}`).join("; "),
        origin: outsider.base,
      },
      body: (() => {
        const f = uploadForm({ bytes: pngBytes, name: "x.png" });
        f.append("_csrf", outsider.csrf);
        return f;
      })(),
      redirect: "manual",
    });
    expect(byOutsider.status).toBe(404);
    expect(await storedCount()).toBe(before);
  });

  test("an approver clears an image; an editor cannot", async () => {
    const created = await h.admin("GET", "/orgs/pictures/assets");
    const id = created.body.data[0].id as string;
    const byEditor = await editor.post(`/app/assets/${id}/clear`);
    expect(byEditor.status).toBe(403);
    const approver = await h.signedIn(org.members.approver);
    const page = await approver.get(assetsPath);
    expect(page.text).toContain(`action="/app/assets/${id}/clear"`);
    const announced: BusEvent[] = [];
    const listening = await h.runtime.bus.subscribe(
      async (event) => {
        announced.push(event);
      },
      { durable: "test-asset-cleared", types: [EVENT.assetCleared] },
    );
    const cleared = await approver.post(`/app/assets/${id}/clear`);
    expect(cleared.status).toBe(303);
    const after = await h.admin("GET", `/assets/${id}`);
    expect(after.body.cleared).toBe(true);
    expect(after.body.cleared_by).toStartWith("person:");
    // Pages already published that name it drop from the public answers' cache.
    const event = await eventually(() => announced[0], { message: "asset.cleared" });
    await listening.stop();
    expect(event.data).toEqual({ organization_id: after.body.organization_id, asset_id: id });
  });
});
