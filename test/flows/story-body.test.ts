import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPublicReadService } from "@newsroom/public-read/app";
import { loadConfig } from "@newsroom/shared/config";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { serviceEntry } from "@newsroom/shared/service";
import { type Harness, workspaceHarness } from "../../services/workspace/test/support/harness.ts";

/**
 * A flow across two services: a story body written through the workspace (paragraphs, as the
 * CLI's `--body "a\n\nb"` stores them) is published and rendered block for block by the public
 * item of public-read, reading the same database.
 */
let h: Harness;
beforeAll(async () => {
  h = await workspaceHarness();
});
afterAll(() => h.close());

describe("a story body from the workspace to the public item", () => {
  test("the published item renders the paragraphs as stored", async () => {
    await h.call("POST", "/orgs", { slug: "body-house", name: "House", newsroom_running: true });
    const paragraphs = [
      { type: "paragraph", text: "a" },
      { type: "paragraph", text: "b" },
    ];
    const created = await h.call("POST", "/orgs/body-house/stories", {
      type: "insight",
      slug: "from-the-shell",
      title: "From the shell",
      body: paragraphs,
    });
    expect(created.status).toBe(201);
    for (const action of ["submit", "approve", "publish"]) {
      const moved = await h.call("POST", `/stories/${created.body.id}/transitions`, { action });
      expect(moved.status).toBe(200);
    }
    const publicRead = await createPublicReadService({
      config: loadConfig({ HOUSE_ORG: "body-house" }),
      database: h.database,
      bus: h.bus,
      rateLimits: new MemoryRateLimitStore(),
      close: async () => {},
    });
    try {
      const item = await serviceEntry(publicRead)(
        new Request("http://localhost/v1/public/newsroom/from-the-shell"),
      );
      expect(item.status).toBe(200);
      expect((await item.json()).body).toEqual(paragraphs);
    } finally {
      await publicRead.stop();
    }
  });
});
