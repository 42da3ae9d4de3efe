import { describe, expect, test } from "bun:test";
import { edge } from "@newsroom/shared/http/edge";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { buildOpenApiDocument, type RouteInfo } from "@newsroom/shared/openapi/document";
import { errorAnswer, operation } from "@newsroom/shared/openapi/operation";
import { Elysia, t } from "elysia";

/** A test app with one route marked as retiring, the way a /v1 route is retired for /v2. */
function appWithRetiringRoute() {
  // An answer found before routing (as a cached read is) for the targets marked `?early`.
  const kit = httpKit("versioning-test", {
    earlyAnswer: (request) => {
      const url = new URL(request.url);
      if (!url.searchParams.has("early")) return null;
      const route = url.pathname === "/v1/current" ? "/v1/current" : "/v1/old/:id";
      return { route, respond: () => Response.json({ early: true }) };
    },
  });
  const app = new Elysia()
    .use(kit)
    .get("/v1/old/:id", ({ params }) => ({ id: params.id }), {
      params: t.Object({ id: t.String({ pattern: "^[0-9]+$" }) }),
      detail: operation({
        operationId: "getOld",
        summary: "An old route",
        description: "Answers until its sunset.",
        tags: ["Test"],
        retiring: {
          deprecatedAt: new Date("2026-06-01T00:00:00Z"),
          sunsetAt: new Date("2027-01-01T00:00:00Z"),
          link: "https://example.com/changelog#v2",
        },
        responses: {
          200: { description: "Still answering.", headers: ["Deprecation", "Sunset"] },
          400: errorAnswer("Bad id.", ["Deprecation", "Sunset"]),
        },
      }),
    })
    .get("/v1/current", () => ({ ok: true }), {
      detail: operation({
        operationId: "getCurrent",
        summary: "A current route",
        description: "Answers.",
        tags: ["Test"],
        responses: { 200: { description: "Yes." } },
      }),
    });
  kit.bindRoutes(app);
  return { app, kit, handle: edge((request) => app.handle(request), { trustedProxies: "" }) };
}

describe("retiring routes", () => {
  const { app, handle } = appWithRetiringRoute();

  test("answer Deprecation (RFC 9745) and Sunset (RFC 8594), with a link to the announcement", async () => {
    const response = await handle(new Request("http://localhost/v1/old/7"));
    expect(response.status).toBe(200);
    expect(response.headers.get("deprecation")).toBe("@1780272000");
    expect(response.headers.get("sunset")).toBe("Fri, 01 Jan 2027 00:00:00 GMT");
    expect(response.headers.get("link")).toBe(
      '<https://example.com/changelog#v2>; rel="deprecation"',
    );
  });

  test("errors of a retiring route carry the headers too", async () => {
    const response = await handle(new Request("http://localhost/v1/old/abc"));
    expect(response.status).toBe(400);
    expect(response.headers.get("deprecation")).toBe("@1780272000");
    expect(response.headers.get("sunset")).not.toBeNull();
  });

  test("other routes do not", async () => {
    const response = await handle(new Request("http://localhost/v1/current"));
    expect(response.headers.get("deprecation")).toBeNull();
    expect(response.headers.get("sunset")).toBeNull();
  });

  test("an answer given before routing (a cached one) carries them as routing would", async () => {
    const retiring = await handle(new Request("http://localhost/v1/old/7"));
    const given = await handle(new Request("http://localhost/v1/old/7?early"));
    expect(await given.json()).toEqual({ early: true });
    for (const header of ["deprecation", "sunset", "link"]) {
      expect(given.headers.get(header), header).toBe(retiring.headers.get(header));
    }
    const current = await handle(new Request("http://localhost/v1/current?early"));
    expect(await current.json()).toEqual({ early: true });
    expect(current.headers.get("deprecation")).toBeNull();
  });

  test("the document marks the operation deprecated", () => {
    const document = buildOpenApiDocument(app.routes as RouteInfo[]);
    expect(document.paths["/v1/old/{id}"]?.get).toMatchObject({ deprecated: true });
    expect(document.paths["/v1/current"]?.get).not.toHaveProperty("deprecated");
  });
});
