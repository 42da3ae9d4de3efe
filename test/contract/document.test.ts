import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { docsRoutes } from "@newsroom/gateway/docs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { DOCUMENT_PATH, renderDocument } from "../../scripts/openapi.ts";
import { contractChecker } from "../support/contract.ts";

const text = readFileSync(DOCUMENT_PATH, "utf8");
const document = JSON.parse(text);

describe("the OpenAPI document", () => {
  test("is what the routes say now (run `npm run openapi` after changing a route)", async () => {
    expect(await renderDocument()).toBe(text);
  }, 30_000);

  test("validates as OpenAPI 3.1 with a real validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.3.0");
  });

  test("a deliberately broken copy fails the same validator", async () => {
    const broken = structuredClone(document);
    broken.paths["/v1/public/newsroom"].get.responses = "every answer";
    delete broken.info.title;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  test("names the headers, the bearer scheme, the Error enums and the webhook events", () => {
    for (const header of [
      "X-Request-Id",
      "X-Service-Version",
      "RateLimit-Policy",
      "Retry-After",
      "Cache-Tag",
      "WWW-Authenticate",
    ]) {
      expect(document.components.headers[header]).toBeDefined();
    }
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    expect(document.components.securitySchemes.feedKey).toMatchObject({
      type: "apiKey",
      in: "query",
      name: "key",
    });
    const error = document.components.schemas.Error.properties.error.properties;
    expect(error.code.anyOf.map((c: { const: string }) => c.const)).toContain("invalid_parameters");
    expect(error.type.anyOf.map((c: { const: string }) => c.const)).toContain("rate_limited");
    expect(Object.keys(document.webhooks).sort()).toEqual([
      "status.incident_updated",
      "story.approved",
      "story.published",
      "story.rejected",
      "story.submitted",
      "story.unpublished",
      "webhook.test",
      "webhook_delivery.exhausted",
      "webhook_endpoint.disabled",
      "webhook_endpoint.failing",
    ]);
    const signed = document.webhooks["story.published"].post.parameters.map(
      (p: { name: string }) => p.name,
    );
    expect(signed).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
  });
});

describe("the document's shape", () => {
  const operations = [
    ...Object.values(document.paths).flatMap((methods) => Object.values(methods as object)),
    ...Object.values(document.webhooks).map((event) => (event as { post: unknown }).post),
  ] as { operationId?: string; description?: string; security?: unknown[] }[];

  test("is compact JSON with no TypeBox option and one Error record, referenced everywhere", () => {
    expect(text.split("\n").length).toBe(2);
    expect(text).not.toContain('"honeypot"');
    expect(text).not.toContain('"trim"');
    expect(text.match(/"request_id":\{/g)).toHaveLength(1);
    expect(text.match(/"#\/components\/schemas\/Error"/g)!.length).toBeGreaterThan(100);
  });

  test("names every operation by hand, once, and describes it", () => {
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("listStories");
    expect(ids).toContain("storyPublished");
    expect(operations.every((operation) => (operation.description ?? "").length > 0)).toBe(true);
    expect(document.info.contact.name).toBeTruthy();
    expect(document.info.license.name).toBeTruthy();
  });

  test("the feeds take the key as a bearer token or as ?key=, and say what they vary on", () => {
    const feed = document.paths["/v1/feed.xml"].get;
    expect(feed.security).toEqual([{ apiKey: ["feed:read"] }, { feedKey: ["feed:read"] }]);
    expect(feed.parameters.map((p: { name: string }) => p.name)).not.toContain("key");
    expect(Object.keys(feed.responses[200].headers)).toEqual(
      expect.arrayContaining(["Vary", "Last-Modified", "ETag"]),
    );
    expect(Object.keys(feed.responses[403].headers)).toContain("WWW-Authenticate");
    for (const event of Object.values(document.webhooks) as { post: { security: unknown } }[]) {
      expect(event.post.security).toEqual([{ webhookSignature: [] }]);
    }
  });

  test("is served with a strong ETag, and 304 to a matching If-None-Match", async () => {
    const first = await docsRoutes.handle(new Request("http://gateway/v1/openapi.json"));
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(await first.text()).toBe(text);
    const again = await docsRoutes.handle(
      new Request("http://gateway/v1/openapi.json", { headers: { "if-none-match": etag } }),
    );
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    const other = await docsRoutes.handle(
      new Request("http://gateway/v1/openapi.json", { headers: { "if-none-match": '"x"' } }),
    );
    expect(other.status).toBe(200);
  });
});

describe("the answer checker", () => {
  const check = contractChecker(document);
  const answer = {
    service: "public-read",
    method: "GET",
    route: "/v1/public/sites/:site",
    status: 200,
    contentType: "application/json",
  };

  test("passes a conforming answer", () => {
    const body = {
      object: "site",
      site: "northwind",
      name: "Northwind News",
      publisher: "Northwind",
      accent: "#0b6e4f",
      logo: null,
      live: true,
      canonical_url: "https://news.northwind.example",
      hostname: "news.northwind.example",
    };
    expect(check({ ...answer, body })).toBeNull();
    expect(check({ ...answer, body: { ...body, live: "yes" } })).toContain("/live");
  });

  test("catches a field of the wrong type", () => {
    const error = {
      error: { type: "invalid_request", code: "not_found", message: "x", request_id: 42 },
    };
    const problem = check({ ...answer, status: 404, body: error });
    expect(problem).toContain("does not match");
    expect(problem).toContain("request_id");
  });

  test("catches a status or a route the document lacks", () => {
    expect(check({ ...answer, status: 418, body: {} })).toContain("status missing");
    expect(check({ ...answer, route: "/v1/public/nowhere", body: {} })).toContain("route missing");
  });
});
