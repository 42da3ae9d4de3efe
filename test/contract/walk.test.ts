import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { loadConfig } from "@newsroom/shared/config";
import { freePort } from "@newsroom/shared/testing/ports";
import startSesEmulator from "aws-ses-v2-local";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";
import { DOCUMENT_PATH } from "../../scripts/openapi.ts";

/**
 * Walks the OpenAPI document and calls every operation at least once against the whole service
 * (embedded, with the demo data and the SES emulator): each answer's status must be one the
 * document gives for that operation. The contract preload then checks every body.
 */
const document = JSON.parse(readFileSync(DOCUMENT_PATH, "utf8")) as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; security?: unknown[] }>
  >;
};

let embedded: Embedded;
let ses: { close(): void };
let key = "";
const values: Record<string, string> = {
  site: "northwind",
  hostname: "news.northwind.example",
  id: "cs_test_a1B2c3D4e5F6g7H8i9J0",
  org: "northwind",
};

beforeAll(async () => {
  const sesPort = await freePort();
  ses = await startSesEmulator({ host: "127.0.0.1", port: sesPort });
  embedded = await startEmbedded(
    loadConfig({
      PGLITE_DIR: "memory",
      PORT: String(await freePort()),
      WORKSPACE_PORT: String(await freePort()),
      SES_ENDPOINT: `http://127.0.0.1:${sesPort}`,
      FORMS_FROM_EMAIL: "newsroom@example.com",
      FORMS_TEAM_EMAIL: "team@example.com",
      HUMAN_CHECK_MODE: "test",
    }),
  );
  key = embedded.testKey!;
  const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
  values.slug = index.items[0].slug;
  values.topic = index.topics[0].slug;
}, 60_000);

afterAll(async () => {
  await embedded?.stop();
  ses?.close();
});

function envelope() {
  return { submission_id: crypto.randomUUID(), started_at: Date.now() - 10_000, fax: "" };
}

/** A valid body for each route that takes one; others get an empty JSON object. */
const BODIES: Record<string, () => unknown> = {
  "/v1/public/contact": () => ({
    intent: "press",
    audience: "organization",
    name: "Ada",
    email: "ada@example.com",
    message: "Hello, a question about the newsroom.",
    consent: true,
    ...envelope(),
  }),
  "/v1/public/careers": () => ({
    name: "Ada",
    email: "ada@example.com",
    location: "Lisbon",
    profile: "https://example.com/ada",
    areas: ["engineering"],
    note: "I would like to build newsrooms with you.",
    consent: true,
    ...envelope(),
  }),
  "/v1/public/start": () => ({
    email: "ada@example.com",
    need: "A newsroom with approvals for our team.",
    stack: { site: "WordPress" },
    human_check_token: "test-pass",
    consent: true,
    ...envelope(),
  }),
  "/v1/public/newsletter/subscribe": () => ({
    email: "ada@example.com",
    consent: true,
    ...envelope(),
  }),
  "/v1/public/newsletter/{org}/subscribe": () => ({
    email: "ada@example.com",
    consent: true,
    ...envelope(),
  }),
  "/v1/public/newsletter/subscribe/confirm": () => ({ t: "A".repeat(43) }),
  "/v1/public/newsletter/confirm": () => ({ t: "A".repeat(43) }),
};

describe("every operation of the document", () => {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );

  test("the document has the routes of every public service", () => {
    const paths = Object.keys(document.paths);
    expect(paths).toContain("/v1/public/newsroom");
    expect(paths).toContain("/v1/public/contact");
    expect(operations.length).toBeGreaterThan(20);
  });

  for (const { path, method, operation } of operations) {
    test(`${method.toUpperCase()} ${path} answers a documented status`, async () => {
      if (path.startsWith("/v1/stories/")) values.id = values.storyId ?? values.id!;
      let url = path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
        const value = name === "slug" && path.includes("/topics/") ? values.topic : values[name];
        return encodeURIComponent(value ?? "x");
      });
      if (url.includes("/newsletter/confirm") || url.includes("/newsletter/unsubscribe")) {
        if (method === "get") url += `?t=${"A".repeat(43)}`;
      }
      const headers: Record<string, string> = { accept: "application/json" };
      if (operation.security && operation.security.length > 0)
        headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (method === "post") {
        headers["content-type"] = "application/json";
        body = JSON.stringify(BODIES[path]?.() ?? {});
      }
      if (path.includes("/newsletter/{org}")) headers.origin = "http://localhost:5173";
      if (method === "options") {
        headers["access-control-request-method"] = "POST";
      }
      const response = await fetch(embedded.url + url, {
        method: method.toUpperCase(),
        headers,
        body,
      });
      expect(Object.keys(operation.responses)).toContain(String(response.status));
      // Checkout is not configured here; everything else is, so no 5xx.
      if (!path.startsWith("/v1/public/checkout")) expect(response.status).toBeLessThan(500);
      if (path === "/v1/stories" && response.status === 200) {
        values.storyId = (await response.json()).data[0]?.id;
      }
    });
  }
});
