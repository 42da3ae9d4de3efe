import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { JSON_CONTENT_TYPE } from "@newsroom/shared/content-types";
import { ApiError } from "@newsroom/shared/errors";
import { matchesIfNoneMatch } from "@newsroom/shared/http/conditional";
import { operation } from "@newsroom/shared/openapi/operation";
import { Elysia, t } from "elysia";

/**
 * The OpenAPI document (generated into gateway/openapi.json by `npm run openapi`) and the API
 * reference page that renders it with Swagger UI, served from this process: no request leaves
 * the machine.
 */
const documentText = readFileSync(new URL("../openapi.json", import.meta.url), "utf8");
/** A strong tag of the document's bytes: clients revalidate the hour-old copy for a 304. */
const documentEtag = `"${new Bun.CryptoHasher("sha256").update(documentText).digest("base64url").slice(0, 32)}"`;
const swaggerUi = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference</title>
  <link rel="icon" href="/favicon.ico" type="image/svg+xml">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/reference.js"></script>
</body>
</html>
`;

const START = `window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#reference", deepLinking: true });\n`;

const HourCache = { "cache-control": "public, max-age=3600" };

export const docsRoutes = new Elysia({ name: "docs" })
  .get(
    "/v1/openapi.json",
    ({ request }) => {
      const headers = { etag: documentEtag, ...HourCache };
      if (matchesIfNoneMatch(request.headers.get("if-none-match"), documentEtag)) {
        return new Response(null, { status: 304, headers });
      }
      return new Response(documentText, {
        headers: { "content-type": JSON_CONTENT_TYPE, ...headers },
      });
    },
    {
      detail: operation({
        operationId: "getOpenApiDocument",
        summary: "The OpenAPI 3.1 document of this API",
        description:
          "This document, compact JSON with a strong `ETag`; a matching `If-None-Match` gets 304. Cached an hour.",
        tags: ["Health"],
        status: "Live",
        responses: {
          200: {
            description: "The document (version 1.3.0).",
            schema: t.Object({ openapi: t.Literal("3.1.0") }, { additionalProperties: true }),
            headers: ["Cache-Control", "ETag"],
          },
          304: {
            description: "The document has not changed since the `ETag` sent as `If-None-Match`.",
            headers: ["Cache-Control", "ETag"],
          },
        },
      }),
    },
  )
  .get(
    "/docs",
    () =>
      new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8", ...HourCache } }),
  )
  .get(
    "/docs/reference.js",
    () =>
      new Response(START, {
        headers: { "content-type": "text/javascript; charset=utf-8", ...HourCache },
      }),
  )
  .get("/docs/assets/:file", ({ params }) => {
    const type = ASSETS[params.file];
    if (!type) throw new ApiError("not_found");
    return new Response(Bun.file(join(swaggerUi, params.file)), {
      headers: { "content-type": type, ...HourCache },
    });
  });
