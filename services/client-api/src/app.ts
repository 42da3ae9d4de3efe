import { type Config, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { httpKit } from "@newsroom/shared/http";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";
import { approvalsRoutes } from "./approvals/routes.ts";
import { KeyUsage, type KeyUsageOptions } from "./auth/key-usage.ts";
import type { ClientApiDeps } from "./deps.ts";
import { feedsRoutes } from "./feeds/routes.ts";
import { CursorCodec } from "./pagination/cursor.ts";
import { storiesRoutes } from "./stories/routes.ts";
import { webhookDeliveriesRoutes } from "./webhook-deliveries/routes.ts";
import { webhookEndpointsRoutes } from "./webhook-endpoints/routes.ts";

export interface ClientApiOptions {
  /** Without a database every route answers 503 api_unavailable. */
  db: Db | undefined;
  config: Pick<Config, "SERVICE_ENV" | "SECRETS_KEY" | "NEWSROOM_HOST">;
  keyUsage?: KeyUsageOptions;
}

/**
 * The client API as an Elysia app plus what it holds (the `last_used_at` batch). Every response,
 * errors included, carries `Cache-Control: private, no-store`.
 */
export function createClientApiApp(options: ClientApiOptions) {
  const keyUsage = new KeyUsage(options.db, options.keyUsage);
  const deps: ClientApiDeps = {
    db: options.db,
    serviceEnv: options.config.SERVICE_ENV,
    cursors: new CursorCodec(secretsKey(options.config as Config)),
    keyUsage,
    newsroomHost: options.config.NEWSROOM_HOST,
  };
  const kit = httpKit("client-api");
  const app = new Elysia({ name: "client-api" })
    .use(kit)
    .onRequest(({ set }) => {
      set.headers["cache-control"] = "private, no-store";
    })
    .get("/health", () => ({ status: "ok", service: "client-api" }))
    .use(storiesRoutes(deps))
    .use(approvalsRoutes(deps))
    .use(feedsRoutes(deps))
    .use(webhookEndpointsRoutes(deps))
    .use(webhookDeliveriesRoutes(deps));
  kit.bindRoutes(app);
  keyUsage.start();
  return { app, keyUsage, deps };
}

/** The read-only client API: stories, approvals, feeds, webhook endpoints and deliveries. */
export async function createClientApiService(runtime: Runtime): Promise<ServiceHandle> {
  const { app, keyUsage } = createClientApiApp({
    db: runtime.database.db,
    config: runtime.config,
  });
  return {
    name: "client-api",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: () => keyUsage.stop(),
  };
}
