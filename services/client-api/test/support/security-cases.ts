import { describe, expect, test } from "bun:test";
import type { KeyScope } from "@newsroom/shared/api-keys";
import { ErrorOut } from "@newsroom/shared/records";
import { Value } from "@sinclair/typebox/value";
import { errorShape, type Fixture } from "./fixture.ts";

/** An authenticated client-API route, as the security cases see it. */
export interface ClientRoute {
  /** The path for organization A's data. */
  path: (f: Fixture) => string;
  scope: KeyScope;
  /** The feeds also take `?key=` (a key whose sole scope is feed:read). */
  feed?: boolean;
  /** What another organization's key gets on A's path: its own list, or 404 like a missing id. */
  otherOrganization: "own-list" | "not-found";
  /** For "not-found": the same path with an id that exists nowhere. */
  missingPath?: (f: Fixture) => string;
}

const ZERO_ID = "00000000-0000-4000-8000-000000000000";

/** Every route of the client API. */
export const CLIENT_ROUTES: Record<string, ClientRoute> = {
  "GET /v1/stories": {
    path: () => "/v1/stories",
    scope: "stories:read",
    otherOrganization: "own-list",
  },
  "GET /v1/stories?status": {
    path: () => "/v1/stories?status=published,review_required",
    scope: "stories:read",
    otherOrganization: "own-list",
  },
  "GET /v1/stories/{id}": {
    path: (f) => `/v1/stories/${f.a.decided}`,
    scope: "stories:read",
    otherOrganization: "not-found",
    missingPath: () => `/v1/stories/${ZERO_ID}`,
  },
  "GET /v1/approvals": {
    path: () => "/v1/approvals",
    scope: "approvals:read",
    otherOrganization: "own-list",
  },
  "GET /v1/feed.json": {
    path: () => "/v1/feed.json",
    scope: "feed:read",
    feed: true,
    otherOrganization: "own-list",
  },
  "GET /v1/feed.xml": {
    path: () => "/v1/feed.xml",
    scope: "feed:read",
    feed: true,
    otherOrganization: "own-list",
  },
  "GET /v1/webhook_endpoints": {
    path: () => "/v1/webhook_endpoints",
    scope: "webhooks:read",
    otherOrganization: "own-list",
  },
  "GET /v1/webhook_deliveries": {
    path: () => "/v1/webhook_deliveries",
    scope: "webhooks:read",
    otherOrganization: "own-list",
  },
  "GET /v1/webhook_deliveries?endpoint_id": {
    path: (f) => `/v1/webhook_deliveries?endpoint_id=${f.a.endpointIds[0]}`,
    scope: "webhooks:read",
    otherOrganization: "own-list",
  },
};

/** Ids of organization A's rows: none may appear in another organization's answer. */
function idsOf(f: Fixture): string[] {
  return [...f.a.storyIds, ...f.a.endpointIds, ...f.a.deliveryIds, f.a.id];
}

async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<{ message: string }> {
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  const body = await response.json();
  expect(Value.Check(ErrorOut, body)).toBe(true);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(response.headers.get("x-request-id"));
  if (status === 401) expect(response.headers.get("www-authenticate")).toBe("Bearer");
  return body.error;
}

function withQueryKey(path: string, key: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}key=${encodeURIComponent(key)}`;
}

/**
 * The failure cases every authenticated route must answer the same way: no key, a scheme other
 * than Bearer, malformed, unknown, expired, revoked, wrong-environment and wrong-scope keys,
 * another organization's key, and keys in the query string.
 */
export function securityCases(routes: string[], fixture: () => Fixture): void {
  for (const name of routes) {
    const route = CLIENT_ROUTES[name]!;
    describe(`${name} security`, () => {
      test("a valid key is answered 200 (the control case)", async () => {
        const f = fixture();
        const response = await f.get(route.path(f), { key: f.a.key });
        expect(response.status).toBe(200);
        // Feeds are revalidated (ETag, 304); every other answer is never stored.
        const cacheControl = route.feed ? "private, no-cache" : "private, no-store";
        expect(response.headers.get("cache-control")).toBe(cacheControl);
      });

      test("no key: 401 missing_api_key", async () => {
        const f = fixture();
        await expectError(await f.get(route.path(f)), 401, "missing_api_key");
      });

      test("a scheme other than Bearer: 401 missing_api_key", async () => {
        const f = fixture();
        const basic = { authorization: `Basic ${btoa(`${f.a.key}:`)}` };
        await expectError(await f.get(route.path(f), { headers: basic }), 401, "missing_api_key");
        const empty = { authorization: "Bearer " };
        await expectError(await f.get(route.path(f), { headers: empty }), 401, "missing_api_key");
      });

      for (const malformed of [
        "armk_test_short",
        "not-a-key",
        `${"armk_test_"}${"A".repeat(44)}`,
      ]) {
        test(`a malformed key (${malformed.slice(0, 14)}…): 401 invalid_api_key`, async () => {
          const f = fixture();
          await expectError(await f.get(route.path(f), { key: malformed }), 401, "invalid_api_key");
        });
      }

      for (const kind of ["unknown", "expired", "revoked"] as const) {
        test(`a ${kind} key: 401 invalid_api_key`, async () => {
          const f = fixture();
          await expectError(
            await f.get(route.path(f), { key: f.keys[kind] }),
            401,
            "invalid_api_key",
          );
        });
      }

      test("a key of the other environment: 401 wrong_environment", async () => {
        const f = fixture();
        const response = await f.get(route.path(f), { key: f.keys.otherEnvironment });
        await expectError(response, 401, "wrong_environment");
      });

      test(`a key without ${route.scope}: 403 insufficient_scope naming it`, async () => {
        const f = fixture();
        const response = await f.get(route.path(f), { key: f.keys.allBut[route.scope] });
        const error = await expectError(response, 403, "insufficient_scope");
        expect(error.message).toContain(route.scope);
        expect(response.headers.get("www-authenticate")).toContain(`scope="${route.scope}"`);
      });

      test("another organization's key never sees this organization's rows", async () => {
        const f = fixture();
        const response = await f.get(route.path(f), { key: f.b.key });
        if (route.otherOrganization === "not-found") {
          const missing = await f.get(route.missingPath!(f), { key: f.a.key });
          expect(await errorShape(response)).toEqual(await errorShape(missing));
          expect(response.status).toBe(404);
          return;
        }
        expect(response.status).toBe(200);
        const text = await response.text();
        for (const id of idsOf(f)) expect(text).not.toContain(id);
      });

      if (route.feed) {
        test("?key= with a key whose sole scope is feed:read: 200", async () => {
          const f = fixture();
          const response = await f.get(withQueryKey(route.path(f), f.keys.feedOnly));
          expect(response.status).toBe(200);
          expect(await response.text()).not.toContain(f.keys.feedOnly);
        });

        test("?key= with a key of more scopes: 401 invalid_api_key saying why", async () => {
          const f = fixture();
          const response = await f.get(withQueryKey(route.path(f), f.a.key));
          const error = await expectError(response, 401, "invalid_api_key");
          expect(error.message).toContain("must have feed:read as its only scope");
        });

        test("?key= wins over the header: a broad key in the URL is refused", async () => {
          const f = fixture();
          const response = await f.get(withQueryKey(route.path(f), f.a.key), {
            key: f.keys.feedOnly,
          });
          await expectError(response, 401, "invalid_api_key");
        });

        test("If-None-Match never answers 304 across organizations or without a working key", async () => {
          const f = fixture();
          const etagOf = async (key: string) => {
            const response = await f.get(route.path(f), { key });
            expect(response.status).toBe(200);
            return response.headers.get("etag")!;
          };
          const ownTag = await etagOf(f.a.key);
          const otherTag = await etagOf(f.b.key);
          expect(ownTag).toMatch(/^"[A-Za-z0-9_-]+"$/);
          expect(otherTag).not.toBe(ownTag);
          const across = await f.get(route.path(f), {
            key: f.a.key,
            headers: { "if-none-match": otherTag },
          });
          expect(across.status).toBe(200);
          expect(across.headers.get("etag")).toBe(ownTag);
          expect(await across.text()).not.toContain(f.b.published[0]!);
          const matching = { "if-none-match": ownTag };
          await expectError(
            await f.get(route.path(f), { headers: matching }),
            401,
            "missing_api_key",
          );
          for (const kind of ["expired", "revoked", "unknown"] as const) {
            const response = await f.get(route.path(f), { key: f.keys[kind], headers: matching });
            await expectError(response, 401, "invalid_api_key");
          }
          const noScope = await f.get(route.path(f), {
            key: f.keys.allBut["feed:read"],
            headers: matching,
          });
          await expectError(noScope, 403, "insufficient_scope");
          const broadInUrl = await f.get(withQueryKey(route.path(f), f.a.key), {
            headers: matching,
          });
          await expectError(broadInUrl, 401, "invalid_api_key");
        });

        for (const kind of ["expired", "revoked", "unknown"] as const) {
          test(`?key= with a ${kind} key: 401 invalid_api_key`, async () => {
            const f = fixture();
            const response = await f.get(withQueryKey(route.path(f), f.keys[kind]));
            const error = await expectError(response, 401, "invalid_api_key");
            // Every scope, but not a working key: nothing about its scopes is said.
            expect(error.message).toBe("The API key is malformed, unknown, expired or revoked.");
          });
        }
      } else {
        test("?key= is refused here even with a valid header: 401 invalid_api_key", async () => {
          const f = fixture();
          const response = await f.get(withQueryKey(route.path(f), f.keys.feedOnly), {
            key: f.a.key,
          });
          await expectError(response, 401, "invalid_api_key");
          const alone = await f.get(withQueryKey(route.path(f), f.a.key));
          await expectError(alone, 401, "invalid_api_key");
        });
      }
    });
  }
}
