import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets, assetVariants, storyAssets } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { newId } from "@newsroom/shared/ids";
import { serviceEntry } from "@newsroom/shared/service";
import { insertStories } from "@newsroom/shared/testing/builders";
import { testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import sharp from "sharp";
import { createPublicReadService } from "../src/app.ts";
import { createOrg, HOUSE_ORG, type Service, testConfig } from "./support/world.ts";

/**
 * Uploaded images on public routes: a cleared one's variants are served at immutable addresses
 * and shown with their size and `srcset`; an uncleared one's bytes and names appear nowhere.
 */

let database: Awaited<ReturnType<typeof testDatabase>>;
let service: Service;
let handle: (request: Request) => Promise<Response>;

const get = (path: string, headers: Record<string, string> = {}) =>
  handle(new Request(`http://localhost${path}`, { headers }));

interface Upload {
  id: string;
  names: string[];
  bytes: Map<string, Uint8Array>;
}

/** An uploaded image as the workspace stores it: the record and WebP variants at 480 and 1600. */
async function upload(orgId: string, cleared: boolean, colour: string): Promise<Upload> {
  const id = newId();
  const bytes = new Map<string, Uint8Array>();
  const rows = [];
  for (const width of [480, 1600]) {
    const data = new Uint8Array(
      await sharp({ create: { width, height: width / 2, channels: 3, background: colour } })
        .webp()
        .toBuffer(),
    );
    const name = `${new Bun.CryptoHasher("sha256").update(data).digest("hex").slice(0, 20)}-${width}.webp`;
    bytes.set(name, data);
    rows.push({
      assetId: id,
      organizationId: orgId,
      name,
      contentType: "image/webp",
      width,
      height: width / 2,
      bytes: data.byteLength,
      data,
    });
  }
  const names = [...bytes.keys()];
  await database.db.insert(assets).values({
    id,
    organizationId: orgId,
    url: `/assets/${names[1]}`,
    alt: cleared ? "A cleared harbour" : "A secret draft",
    cleared,
    contentType: "image/png",
    width: 1600,
    height: 800,
    bytes: 1234,
  });
  await database.db.insert(assetVariants).values(rows);
  return { id, names, bytes };
}

let cleared: Upload;
let uncleared: Upload;

beforeAll(async () => {
  database = await testDatabase();
  const orgId = await createOrg(database.db, HOUSE_ORG, true);
  cleared = await upload(orgId, true, "#2a6");
  uncleared = await upload(orgId, false, "#a26");
  const [storyId] = await insertStories(
    database.db,
    orgId,
    [
      {
        type: "insight",
        slug: "with-images",
        title: "Harbour pictures",
        summary: "Two images, one cleared",
        body: [
          { type: "paragraph", text: "Before the images." },
          { type: "image", asset_id: cleared.id, caption: "The harbour" },
          { type: "image", asset_id: uncleared.id, caption: "Not yet cleared" },
        ],
        topics: ["harbour"],
        externalUrl: null,
        featured: true,
        ageDays: 1,
      },
    ],
    () => "published",
  );
  await database.db.insert(storyAssets).values([
    { storyId: storyId!, assetId: uncleared.id, position: 0 },
    { storyId: storyId!, assetId: cleared.id, position: 1 },
  ]);
  service = await createPublicReadService(testRuntime({ database, config: testConfig() }));
  const entry = edge(serviceEntry(service), { trustedProxies: "" });
  handle = async (request) => entry(request);
});

afterAll(async () => {
  await service.stop();
  await database.close();
});

describe("uploaded images on public routes", () => {
  test("a cleared variant: its bytes, its type, cached for a year as immutable", async () => {
    for (const name of cleared.names) {
      const response = await get(`/assets/${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/webp");
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(Buffer.from(await response.arrayBuffer()).equals(cleared.bytes.get(name)!)).toBe(true);
    }
  });

  test("the same address on a client's hostname serves it too (not taken for a page)", async () => {
    const response = await get(`/assets/${cleared.names[0]}`, { host: "news.client.example" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/webp");
  });

  test("the cards and structured data name the cleared image by its absolute address", async () => {
    const page = await (await get("/newsroom/with-images")).text();
    const canonical = /<link rel="canonical" href="([^"]+)">/.exec(page)?.[1] ?? "";
    const expected = new URL(`/assets/${cleared.names[1]}`, canonical).href;
    expect(expected).toStartWith("http");
    expect(page).toContain(`<meta property="og:image" content="${expected}">`);
    expect(page).toContain(`<meta name="twitter:image" content="${expected}">`);
    const jsonLd = JSON.parse(
      /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page)?.[1] ?? "{}",
    );
    expect(jsonLd.image).toEqual([expected]);
  });

  test("an uncleared variant, an unknown or malformed name: 404", async () => {
    for (const path of [
      ...uncleared.names.map((name) => `/assets/${name}`),
      `/assets/${"0".repeat(20)}-480.webp`,
      "/assets/..%2f..%2fetc%2fpasswd",
      `/assets/${cleared.names[0]!.toUpperCase()}`,
    ]) {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(response.headers.get("cache-control") ?? "").not.toContain("immutable");
    }
  });

  test("the item page shows the cleared image with its size and srcset, not the uncleared", async () => {
    const page = await (await get("/newsroom/with-images")).text();
    const [small, large] = cleared.names;
    expect(page).toContain(
      `<img src="/assets/${large}" srcset="/assets/${small} 480w, /assets/${large} 1600w" sizes="(max-width: 50rem) 100vw, 50rem" width="1600" height="800" alt="A cleared harbour"`,
    );
    expect(page).toContain("The harbour");
    expect(page).not.toContain("Not yet cleared");
    expect(page).not.toContain("A secret draft");
    for (const name of uncleared.names) expect(page).not.toContain(name);
    expect(page).not.toContain(uncleared.id);
  });

  test("no public answer names the uncleared image; the cards show the cleared one", async () => {
    for (const path of [
      "/newsroom",
      "/newsroom/with-images",
      "/newsroom/feed.xml",
      "/newsroom/feed.json",
      "/v1/public/newsroom",
      "/v1/public/newsroom/with-images",
      "/v1/public/topics/harbour",
      "/v1/public/search/newsroom",
      "/sitemap.xml",
    ]) {
      const response = await get(path);
      expect(response.status).toBe(200);
      const text = await response.text();
      for (const name of uncleared.names) expect(text).not.toContain(name);
      expect(text).not.toContain(uncleared.id);
      expect(text).not.toContain("A secret draft");
    }
    const index = await (await get("/newsroom")).text();
    expect(index).toContain(`srcset="/assets/${cleared.names[0]} 480w`);
    const item = await (await get("/v1/public/newsroom/with-images")).json();
    expect(item.image).toMatchObject({ url: `/assets/${cleared.names[1]}`, width: 1600 });
    expect(item.body[1].asset.variants.map((v: { width: number }) => v.width)).toEqual([480, 1600]);
  });
});
