/**
 * `npm run openapi`: builds the OpenAPI 3.1 document from the routes of every public service
 * (their validating TypeBox schemas and `operation()` descriptions) and writes
 * gateway/openapi.json (compact JSON), which the gateway serves in every mode. `--check` fails when the file
 * differs from what the routes say (CI runs it through the contract tests).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createClientApiService } from "@newsroom/client-api/app";
import { createFormsService } from "@newsroom/forms/app";
import { createGateway } from "@newsroom/gateway/app";
import { createPublicReadService } from "@newsroom/public-read/app";
import { loadConfig } from "@newsroom/shared/config";
import { buildOpenApiDocument, type RouteInfo } from "@newsroom/shared/openapi/document";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { openRuntime } from "@newsroom/shared/runtime";
import { createOAuthApi } from "@newsroom/workspace/oauth/api-routes";

export const DOCUMENT_PATH = new URL("../gateway/openapi.json", import.meta.url).pathname;

/**
 * A runtime to build every app in this process and read its routes: an in-memory PGlite, the
 * in-process bus, email set up (so the form routes are there) but never sent.
 */
export function scratchRuntime() {
  return openRuntime(
    loadConfig({
      PGLITE_DIR: "memory",
      FORMS_FROM_EMAIL: "a@example.com",
      FORMS_TEAM_EMAIL: "b@example.com",
      SES_ENDPOINT: "http://127.0.0.1:9",
    }),
  );
}

/** The gateway's own app, with no upstreams: its routes, not its forwarding. */
export function scratchGateway(runtime: Awaited<ReturnType<typeof scratchRuntime>>) {
  return createGateway({
    config: runtime.config,
    mode: "embedded",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: {},
    readinessChecks: [],
  });
}

/** Every route of the public services and the gateway, as the apps list them. */
export async function publicRoutes(): Promise<RouteInfo[]> {
  const runtime = await scratchRuntime();
  try {
    const services = [
      await createPublicReadService(runtime),
      await createFormsService(runtime),
      await createClientApiService(runtime),
    ];
    const gateway = scratchGateway(runtime);
    // Approvals through the API: the workspace's public routes beside its web app.
    const approvals = createOAuthApi({
      db: runtime.database.db,
      appUrl: "http://localhost",
      now: () => new Date(),
      kickRelay: () => {},
    });
    const routes = [
      ...gateway.routes,
      ...services.flatMap((service) => service.app.routes),
      ...approvals.app.routes,
    ];
    for (const service of services) await service.stop();
    return routes as RouteInfo[];
  } finally {
    await runtime.close();
  }
}

export async function renderDocument(): Promise<string> {
  return `${JSON.stringify(buildOpenApiDocument(await publicRoutes()))}\n`;
}

if (import.meta.main) {
  const rendered = await renderDocument();
  if (process.argv.includes("--check")) {
    const current = readFileSync(DOCUMENT_PATH, "utf8");
    if (current !== rendered) {
      console.error("gateway/openapi.json is out of date: run `npm run openapi`");
      process.exit(1);
    }
    console.log("gateway/openapi.json is up to date");
  } else {
    writeFileSync(DOCUMENT_PATH, rendered);
    console.log(`wrote ${DOCUMENT_PATH}`);
  }
  process.exit(0);
}
