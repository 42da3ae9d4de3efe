import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets, assetVariants } from "@newsroom/shared/db/schema";
import { count, eq } from "drizzle-orm";
import sharp from "sharp";
import { ADMIN_TOKEN, type Harness, workspaceHarness } from "./support/harness.ts";
import { jpegWithGps, pngBomb, pngImage, uploadForm } from "./support/images.ts";

/** Hostile uploads through the internal API: refused before anything is stored. */
describe("asset uploads: hostile files", () => {
  let h: Harness;
  let orgId: string;

  beforeAll(async () => {
    h = await workspaceHarness();
    orgId = (await h.call("POST", "/orgs", { slug: "uploads", name: "Uploads" })).body.id;
  });
  afterAll(() => h.close());

  async function upload(body: FormData | Blob, headers: Record<string, string> = {}) {
    const response = await h.fetch(
      new Request("http://localhost/internal/v1/orgs/uploads/assets", {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
        body,
      }),
    );
    return { status: response.status, body: await response.json() };
  }

  async function storedCount() {
    const [row] = await h.database.db
      .select({ n: count() })
      .from(assets)
      .where(eq(assets.organizationId, orgId));
    return row?.n ?? 0;
  }

  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  function expectFileRefused(answer: { status: number; body: any }) {
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe("validation_failed");
    expect(answer.body.error.fields.map((f: { field: string }) => f.field)).toContain("file");
  }

  test("a PNG named .jpg is taken as the PNG it is", async () => {
    const bytes = await pngImage(64, 48);
    const answer = await upload(uploadForm({ bytes, name: "photo.jpg", type: "image/jpeg" }));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      object: "asset",
      cleared: false,
      content_type: "image/png",
      width: 64,
      height: 48,
      bytes: bytes.length,
      alt: "A test image",
      credit: "Photo: Test",
      rights_holder: "Test Ltd",
    });
  });

  test("an SVG and an HTML file renamed .png are refused, nothing stored", async () => {
    const before = await storedCount();
    const svg = new TextEncoder().encode(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
    );
    expectFileRefused(
      await upload(uploadForm({ bytes: svg, name: "logo.svg", type: "image/svg+xml" })),
    );
    const page = new TextEncoder().encode("<!doctype html><script>alert(1)</script>");
    expectFileRefused(await upload(uploadForm({ bytes: page, name: "x.png", type: "image/png" })));
    expect(await storedCount()).toBe(before);
  });

  test("a decompression bomb is refused before it is decoded", async () => {
    const before = await storedCount();
    const started = performance.now();
    const answer = await upload(uploadForm({ bytes: pngBomb(), name: "bomb.png" }));
    expectFileRefused(answer);
    expect(answer.body.error.fields[0].reason).toBe("too_many_pixels");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await storedCount()).toBe(before);
  });

  test("10 MB + 1 byte is refused with a message that says the limit; 10 MB is read", async () => {
    const before = await storedCount();
    const png = await pngImage(32, 32);
    const padded = (size: number) => {
      const bytes = new Uint8Array(size);
      bytes.set(png);
      return bytes;
    };
    const over = await upload(uploadForm({ bytes: padded(10_000_001), name: "big.png" }));
    expect([413, 422]).toContain(over.status);
    expect(over.body.error.message + JSON.stringify(over.body.error.fields ?? [])).toContain(
      "10 MB",
    );
    // Exactly the limit passes the size rule (then it is judged as an image: trailing bytes
    // after a PNG's end are ignored by the decoder).
    const at = await upload(uploadForm({ bytes: padded(10_000_000), name: "at.png" }));
    expect(at.status).toBe(201);
    expect(await storedCount()).toBe(before + 1);
  });

  test("a body past the upload limit is 413 before it is read; other routes keep 1 MiB", async () => {
    const before = await storedCount();
    const over = await upload(uploadForm({ bytes: new Uint8Array(11_000_000), name: "huge.png" }));
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe("body_too_large");
    expect(over.body.error.message).toContain("10 MB");
    const elsewhere = await h.fetch(
      new Request("http://localhost/internal/v1/orgs", {
        method: "POST",
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          "content-type": "application/json",
          "content-length": String(2 * 1024 * 1024),
        },
        body: "x".repeat(2 * 1024 * 1024),
      }),
    );
    expect(elsewhere.status).toBe(413);
    expect(await storedCount()).toBe(before);
  });

  test("EXIF and GPS are gone from every stored variant; the image is turned upright", async () => {
    const answer = await upload(
      uploadForm({ bytes: await jpegWithGps(1200, 800), name: "gps.jpg" }),
    );
    expect(answer.status).toBe(201);
    // Orientation 6: stored sideways, upright 800 wide.
    expect(answer.body).toMatchObject({ content_type: "image/jpeg", width: 800, height: 1200 });
    const widths = answer.body.variants.map((v: { width: number }) => v.width);
    expect(widths).toEqual([480, 800, 800]); // never upscaled to 960 or 1600; the JPEG last
    const rows = await h.database.db
      .select()
      .from(assetVariants)
      .where(eq(assetVariants.assetId, answer.body.id));
    expect(rows.length).toBe(3);
    for (const row of rows) {
      const meta = await sharp(row.data).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.iptc).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
      expect(meta.width).toBe(row.width);
      expect(meta.height).toBeGreaterThan(meta.width ?? 0);
      expect(Buffer.from(row.data).includes("TestCam")).toBe(false);
    }
  });

  test("alt text is required, and a file", async () => {
    const before = await storedCount();
    const noAlt = await upload(
      uploadForm({ bytes: await pngImage(), name: "a.png" }, { alt: "  ", credit: "x" }),
    );
    expect(noAlt.status).toBe(422);
    expect(noAlt.body.error.fields.map((f: { field: string }) => f.field)).toEqual(["alt"]);
    expectFileRefused(await upload(uploadForm(null)));
    expect(await storedCount()).toBe(before);
  });

  test("a body that is not multipart is 415; another organization's asset is 404", async () => {
    const json = await upload(new Blob(["{}"]), { "content-type": "application/json" });
    expect(json.status).toBe(415);
    expect((await h.call("GET", `/assets/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await h.call("POST", `/assets/${crypto.randomUUID()}/clear`)).status).toBe(404);
    expect((await h.call("POST", "/assets/not-an-id/clear")).status).toBe(404);
  });

  test("clearing records who and when; the list shows it", async () => {
    const created = await upload(uploadForm({ bytes: await pngImage(), name: "c.png" }));
    const cleared = await h.call("POST", `/assets/${created.body.id}/clear`);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ cleared: true, cleared_by: "admin" });
    expect(cleared.body.cleared_at).toBeString();
    const list = await h.call("GET", "/orgs/uploads/assets");
    expect(list.body.data.find((a: { id: string }) => a.id === created.body.id).cleared).toBe(true);
  });
});
