import { expect, test } from "bun:test";
import { testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { client, createOrg, HOUSE_ORG, seedStories, testConfig } from "./support/world.ts";

test("without a database a page answers a 503 page (not JSON), never cached", async () => {
  const database = await testDatabase({ backend: "pglite" });
  const orgId = await createOrg(database.db, HOUSE_ORG, true);
  await seedStories(database.db, orgId, [
    { type: "insight", status: "published", slug: "a-story", topics: ["world"] },
  ]);
  const service = await createPublicReadService(testRuntime({ database, config: testConfig() }));
  const get = client(service);
  const warm = await get("/newsroom");
  expect(warm.status).toBe(200);

  await database.close();

  for (const [path, headers] of [
    ["/newsroom/a-story", {}],
    ["/newsroom/topics/world", {}],
    ["/newsroom/_newsletter", {}],
    ["/n/some-site", {}],
    ["/a-story", { host: "news.example.com" }],
  ] as const) {
    const answer = await get(path, headers);
    expect({ path, status: answer.status }).toEqual({ path, status: 503 });
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(answer.headers.get("retry-after")).toBe("60");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.text).toContain('<html lang="en">');
    expect(answer.text).toContain("try again");
  }
  await service.stop();
}, 60_000);
