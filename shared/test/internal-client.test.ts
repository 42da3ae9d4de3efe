import { afterAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { ApiError } from "../src/errors.ts";
import { httpKit } from "../src/http/http-kit.ts";
import { checkAdminToken } from "../src/http/internal-auth.ts";
import { InternalClient } from "../src/http/internal-client.ts";

const TOKEN = "internal-client-test-token";

/** A small internal API: the token checked, an echo, a refusal with fields, a 204 and a 500. */
function internalApp() {
  const kit = httpKit("webhooks");
  const app = new Elysia()
    .use(kit)
    .onBeforeHandle(({ request }) => checkAdminToken(request.headers.get("authorization"), TOKEN))
    .post("/internal/v1/echo", ({ body, request }) => ({
      body,
      request_id: request.headers.get("x-request-id"),
      query: new URL(request.url).search,
    }))
    .post("/internal/v1/refuse", () => {
      throw new ApiError("validation_failed", "The URL is not allowed.", {
        fields: [{ field: "url", reason: "not_https", message: "Use https." }],
      });
    })
    .delete("/internal/v1/gone", ({ set }) => {
      set.status = 204;
      return null;
    })
    .get("/internal/v1/broken", () => {
      throw new Error("boom");
    });
  kit.bindRoutes(app);
  return app;
}

const app = internalApp();
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request) => app.handle(request),
});
afterAll(() => server.stop(true));

const targets = {
  "in this process": (token = TOKEN) => new InternalClient("webhooks", (r) => app.handle(r), token),
  "over HTTP": (token = TOKEN) =>
    new InternalClient("webhooks", `http://127.0.0.1:${server.port}/`, token),
};

for (const [name, client] of Object.entries(targets)) {
  describe(`internal client, ${name}`, () => {
    test("sends the body, the token, the query and the request id, and returns the JSON", async () => {
      const answer = await client().call<{ body: unknown; request_id: string; query: string }>(
        "POST",
        "/internal/v1/echo?x=1",
        { body: { url: "https://example.com" }, requestId: "req-123" },
      );
      expect(answer).toEqual({
        body: { url: "https://example.com" },
        request_id: "req-123",
        query: "?x=1",
      });
    });

    test("a refusal comes back as the same ApiError, fields included", async () => {
      const failure = await client()
        .call("POST", "/internal/v1/refuse", { body: {} })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ApiError);
      const error = failure as ApiError;
      expect(error.code).toBe("validation_failed");
      expect(error.message).toBe("The URL is not allowed.");
      expect(error.fields).toEqual([{ field: "url", reason: "not_https", message: "Use https." }]);
    });

    test("a wrong token is 401 unauthorized", async () => {
      const failure = await client("not-the-token")
        .call("POST", "/internal/v1/echo", { body: {} })
        .catch((error: unknown) => error);
      expect((failure as ApiError).code).toBe("unauthorized");
    });

    test("204 is undefined; a 500 of the callee is 503 with Retry-After", async () => {
      expect(await client().call("DELETE", "/internal/v1/gone")).toBeUndefined();
      const failure = (await client()
        .call("GET", "/internal/v1/broken")
        .catch((error: unknown) => error)) as ApiError;
      expect(failure.status).toBe(503);
      expect(failure.headers["retry-after"]).toBe("60");
    });
  });
}

test("a service that cannot be reached is 503 with Retry-After", async () => {
  const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = closed.port;
  closed.stop(true);
  const client = new InternalClient("forms", `http://127.0.0.1:${port}`, TOKEN);
  const failure = (await client
    .call("GET", "/internal/v1/anything")
    .catch((e: unknown) => e)) as ApiError;
  expect(failure.code).toBe("forms_unavailable");
  expect(failure.headers["retry-after"]).toBe("60");
});
