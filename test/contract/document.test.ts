import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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
    const error = document.components.schemas.Error.properties.error.properties;
    expect(error.code.anyOf.map((c: { const: string }) => c.const)).toContain("invalid_parameters");
    expect(error.type.anyOf.map((c: { const: string }) => c.const)).toContain("rate_limited");
    expect(Object.keys(document.webhooks).sort()).toEqual([
      "story.approved",
      "story.published",
      "story.rejected",
      "story.submitted",
      "story.unpublished",
      "webhook.test",
    ]);
    const signed = document.webhooks["story.published"].post.parameters.map(
      (p: { name: string }) => p.name,
    );
    expect(signed).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
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
