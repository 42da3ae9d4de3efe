import type { Subscription } from "@newsroom/shared/bus/index";
import { adminToken } from "@newsroom/shared/config";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { checkAdminToken } from "@newsroom/shared/http/internal-auth";
import { pathOf } from "@newsroom/shared/http/urls";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ReadinessCheck, ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";
import { assetsRoutes, isAssetPath } from "./assets/routes.ts";
import { cdnPurger, type PurgeOptions } from "./caching/cdn-purge.ts";
import { subscribePurges } from "./caching/invalidation.ts";
import { createReader } from "./caching/reader.ts";
import { PUBLIC_ANSWER_HEADERS } from "./caching/responses.ts";
import { subscribeCdnPurge } from "./caching/story-purge.ts";
import { checkoutRoutes } from "./checkout/routes.ts";
import { checkoutReader } from "./checkout/service.ts";
import { cachedCheckoutReader } from "./checkout/summary-cache.ts";
import type { PublicReadConfig } from "./config.ts";
import { newsroomIndex } from "./content/service.ts";
import { healthRoutes } from "./health/routes.ts";
import { newsroomRoutes } from "./newsroom/routes.ts";
import { houseNewsroom } from "./newsroom/service.ts";
import { documentsRoutes } from "./pages/documents.ts";
import { previewRoutes } from "./pages/preview.ts";
import { HOST_PAGE_ROUTE, pagesRoutes } from "./pages/routes.ts";
import { sitesRoutes } from "./sites/routes.ts";

export interface PublicReadOptions {
  /** Longest a content read may take before the route answers 503 (default 5 s). */
  readTimeoutMs?: number;
  /** Retries and timeout of CDN purges (CDN_PURGE_PROVIDER). */
  cdnPurge?: PurgeOptions;
}

/**
 * Public news reads, hosted newsrooms, hostnames, sitemaps, search documents, checkout summary.
 * Every read is answered from the database: the gateway keeps the public answers and hears the
 * purges this service works out (`subscribePurges`).
 */
export async function createPublicReadService(
  runtime: Runtime<PublicReadConfig>,
  options: PublicReadOptions = {},
): Promise<ServiceHandle> {
  const { db } = runtime.database;
  // Before anything starts: a provider without its token or zone stops start-up.
  const purger = cdnPurger(runtime.config, options.cdnPurge);
  const reader = createReader({ timeoutMs: options.readTimeoutMs });
  const deps = { db, config: runtime.config, reader };
  const checkout = checkoutReader(runtime.config);
  const pages = pagesRoutes(deps, runtime.bus);
  const documents = documentsRoutes(deps);

  const readiness: ReadinessCheck[] = [
    { name: "database", check: () => runtime.database.ping() },
    {
      // The public read path: the house index.
      name: "read_path",
      check: async () => {
        await newsroomIndex(db, await houseNewsroom(db, runtime.config), {});
      },
    },
  ];

  const token = adminToken(runtime.config);
  const kit = httpKit("public-read", {
    headers: PUBLIC_ANSWER_HEADERS,
    // What the path router cannot say, asked first: robots.txt, sitemaps and feeds, on the
    // service's host and on a client's hostname; then a client's hostname: its pages, whatever
    // the path (`/newsroom` there is its own story), except the routed asset variants.
    earlyAnswer: (request) =>
      documents.match(request) ??
      (pages.servesHost(request) && !isAssetPath(pathOf(request.url))
        ? { route: HOST_PAGE_ROUTE, respond: () => pages.hostPage(request) }
        : null),
  });
  const app = new Elysia({ name: "public-read" })
    .use(kit)
    .use(healthRoutes({ databaseKind: runtime.database.kind, checks: readiness }))
    .use(newsroomRoutes(deps))
    .use(sitesRoutes(deps))
    .onRequest(({ request }) => {
      if (pathOf(request.url).startsWith("/internal/")) {
        checkAdminToken(request.headers.get("authorization"), token);
      }
    })
    .use(pages.routes)
    .use(previewRoutes(deps, pages.brandOf))
    .use(assetsRoutes(deps))
    .use(checkoutRoutes(checkout && cachedCheckoutReader(checkout)));
  kit.bindRoutes(app);

  const purges: Subscription = await subscribePurges(runtime.bus, {
    db,
    houseOrg: runtime.config.HOUSE_ORG,
  });
  const cdnPurges: Subscription | null = purger
    ? await subscribeCdnPurge(runtime.bus, { db, purger, houseOrg: runtime.config.HOUSE_ORG })
    : null;
  return {
    name: "public-read",
    app,
    readiness,
    stop: async () => {
      await purges.stop();
      await cdnPurges?.stop();
    },
  };
}
