/**
 * The embedded composition: every service in one process behind the gateway. Used by
 * `npm start` and by tests that want the whole service on one port.
 */
import { createClientApiService } from "@newsroom/client-api/app";
import { createFormsService } from "@newsroom/forms/app";
import { PublicAnswerCache, subscribeAnswerPurges } from "@newsroom/gateway/answer-cache";
import { createGateway } from "@newsroom/gateway/app";
import { createPublicReadService } from "@newsroom/public-read/app";
import type { Config } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { SERVER_BODY_LIMIT, serverOptions } from "@newsroom/shared/http/server-safety";
import { openRuntime, type Runtime } from "@newsroom/shared/runtime";
import { type ServiceHandle, serviceEntry } from "@newsroom/shared/service";
import { serveOn } from "@newsroom/shared/startup";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { createWorkspaceService } from "@newsroom/workspace/app";
import { type DemoPerson, seedDemo } from "@newsroom/workspace/demo/seed";
import { serveWorkspace } from "@newsroom/workspace/server";

export interface Embedded {
  url: string;
  workspaceUrl: string;
  runtime: Runtime;
  /** The demo's test key, on the first start only, and the slug of its organization. */
  testKey?: string;
  testKeyOrg?: string;
  /** The demo's people (sign-in addresses), when the demo data was loaded. */
  demoPeople: DemoPerson[];
  /** Every app of the process by name, with its routes and its way in (for route sweeps). */
  apps: EmbeddedApp[];
  stop(): Promise<void>;
}

export interface EmbeddedApp {
  name: string;
  routes: { method: string; path: string }[];
  handle: (request: Request) => Response | Promise<Response>;
}

export async function startEmbedded(
  config: Config,
  options: { seed?: boolean; workspaceHost?: string; now?: () => Date } = {},
): Promise<Embedded> {
  const runtime = await openRuntime(config);
  const { db } = runtime.database;
  const demo =
    options.seed === false
      ? { seeded: false }
      : await seedDemo(db, config.HOUSE_ORG, config.SERVICE_ENV);
  const services: ServiceHandle[] = [
    await createPublicReadService(runtime),
    await createFormsService(runtime),
    await createClientApiService(runtime),
    await createWebhooksService(runtime),
  ];
  const [publicRead, forms, clientApi, webhooks] = services as [
    ServiceHandle,
    ServiceHandle,
    ServiceHandle,
    ServiceHandle,
  ];
  // The workspace sends its commands to the services that own the data, here in this process.
  // It keeps its own port too (the internal API, for the CLI): loopback by default.
  const workspace = await createWorkspaceService(runtime, {
    now: options.now,
    inProcess: {
      webhooks: serviceEntry(webhooks),
      forms: serviceEntry(forms),
      publicRead: serviceEntry(publicRead),
    },
  });
  const workspaceServer = serveWorkspace(config, workspace, {
    hostname: options.workspaceHost ?? "127.0.0.1",
  });
  // Public answers kept at the gateway, as in the distributed mode (the one cache of public
  // answers): a warm public read is answered before routing, and purged on the in-process bus.
  const answerCache = new PublicAnswerCache();
  const purges = await subscribeAnswerPurges(runtime.bus, answerCache);
  const gateway = createGateway({
    config,
    mode: "embedded",
    answerCache,
    rateLimits: runtime.rateLimits,
    upstreams: {
      "public-read": serviceEntry(publicRead),
      forms: serviceEntry(forms),
      "client-api": serviceEntry(clientApi),
      workspace: workspace.web.handle,
    },
    readinessChecks: services.flatMap((service) =>
      service.readiness.map((check) => ({ ...check, name: `${service.name}:${check.name}` })),
    ),
  });
  const server = serveOn("PORT", {
    ...serverOptions(config),
    port: config.PORT,
    maxRequestBodySize: SERVER_BODY_LIMIT,
    fetch: edge((request) => gateway.handle(request), {
      trustedProxies: config.TRUSTED_PROXIES,
      compress: true,
    }),
  });
  return {
    url: `http://localhost:${server.port}`,
    workspaceUrl: workspaceServer.url,
    runtime,
    testKey: demo.seeded ? (demo as { testKey?: string }).testKey : undefined,
    testKeyOrg: "testKeyOrg" in demo ? demo.testKeyOrg : undefined,
    demoPeople: "people" in demo ? (demo.people ?? []) : [],
    apps: [
      ...[...services, workspace].map((service) => ({
        name: service.name,
        routes: service.app.routes,
        handle: serviceEntry(service),
      })),
      { name: "workspace-web", routes: workspace.web.app.routes, handle: workspace.web.handle },
      { name: "gateway", routes: gateway.routes, handle: gateway.handle },
    ],
    stop: async () => {
      await server.stop();
      await workspaceServer.stop();
      await workspace.stop();
      for (const service of services) await service.stop();
      await purges.stop();
      answerCache.clear();
      await runtime.close();
    },
  };
}
