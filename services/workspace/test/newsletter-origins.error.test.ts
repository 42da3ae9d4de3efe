import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseWebsiteOrigin } from "../src/web/newsletter-origin.ts";
import { type Harness, workspaceHarness } from "./support/harness.ts";
import { orgWithMembers, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * One rule for newsletter origins, the same in the web app, the internal API (the CLI) and the
 * demo: https origins, and a page on this machine over http in development only.
 */
describe("the newsletter origin rule", () => {
  const local = ["http://localhost:5173", "http://127.0.0.1:8080"];
  const refusedEverywhere = [
    "http://www.example.com",
    "http://10.0.0.7:8080",
    "ftp://www.example.com",
    "https://www.example.com/path",
    "https://user@www.example.com",
    "",
  ];

  test("https everywhere; http on localhost or 127.0.0.1 in development only", () => {
    for (const env of ["development", "sandbox", "production"] as const) {
      expect(parseWebsiteOrigin("HTTPS://WWW.Example.com:443/", env)).toEqual({
        origin: "https://www.example.com",
      });
      for (const origin of local) {
        expect(parseWebsiteOrigin(origin, env)).toEqual(
          env === "development" ? { origin } : { error: expect.stringContaining("https") },
        );
      }
      for (const origin of refusedEverywhere) {
        expect("error" in parseWebsiteOrigin(origin, env)).toBe(true);
      }
    }
    expect(parseWebsiteOrigin("http://example.com", "development")).toEqual({
      error: expect.stringContaining("http://localhost:<port>"),
    });
  });

  describe("the internal API (the CLI's org-update)", () => {
    const harnesses: Partial<Record<"development" | "sandbox", Harness>> = {};
    beforeAll(async () => {
      for (const env of ["development", "sandbox"] as const) {
        const h = await workspaceHarness({ serviceEnv: env });
        await h.call("POST", "/orgs", { slug: "letters", name: "Letters" });
        harnesses[env] = h;
      }
    }, 60_000);
    afterAll(async () => {
      for (const h of Object.values(harnesses)) await h.close();
    });

    for (const field of ["newsletter_origins", "add_newsletter_origins"]) {
      test(`${field}: a local http origin in development only, a public http one never`, async () => {
        const dev = harnesses.development!;
        const sandbox = harnesses.sandbox!;
        const accepted = await dev.call("PATCH", "/orgs/letters", {
          [field]: ["https://www.example.com", "http://localhost:5173"],
        });
        expect(accepted.status).toBe(200);
        expect(accepted.body.newsletter_origins).toContain("http://localhost:5173");
        const refused = await sandbox.call("PATCH", "/orgs/letters", {
          [field]: ["https://www.example.com", "http://localhost:5173"],
        });
        expect(refused.status).toBe(422);
        expect(refused.body.error.fields).toEqual([
          expect.objectContaining({ field: `${field}.1`, reason: "invalid_origin" }),
        ]);
        const publicHttp = await dev.call("PATCH", "/orgs/letters", {
          [field]: ["http://www.example.com"],
        });
        expect(publicHttp.status).toBe(422);
      });
    }
  });

  describe("the web app", () => {
    let h: WebHarness;
    beforeAll(async () => {
      h = await webHarness();
    }, 60_000);
    afterAll(() => h?.close());

    test("development adds a local http origin and refuses a public http one beside the field", async () => {
      const org = await orgWithMembers(h, "web-letters", 0);
      const owner = await h.signedIn(org.members.owner);
      const page = await owner.get("/app/orgs/web-letters/newsletter");
      expect(page.text).toContain("http://localhost:&lt;port&gt;");
      const added = await owner.post("/app/orgs/web-letters/newsletter/origins", {
        origin: "http://127.0.0.1:8080",
      });
      expect(added.status).toBe(303);
      const refused = await owner.post("/app/orgs/web-letters/newsletter/origins", {
        origin: "http://www.example.com",
      });
      expect(refused.status).toBe(422);
      expect(refused.text).toContain("Write an https origin");
      const origins = (await h.admin("GET", "/orgs/web-letters")).body.newsletter_origins;
      expect(origins).toEqual(["http://127.0.0.1:8080"]);
    });
  });
});
