import { type Config, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { httpKit } from "@newsroom/shared/http";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";
import { approvalsRoutes } from "./approvals/routes.ts";
import { KeyUsage, type KeyUsageOptions } from "./auth/key-usage.ts";
import { keyFinder } from "./auth/service.ts";
import { dropOnChange } from "./caching/invalidation.ts";
import { ReadCache, type ReadCacheOptions } from "./caching/read-cache.ts";
import type { ClientApiDeps } from "./deps.ts";
import { feedsRoutes } from "./feeds/routes.ts";
import { CursorCodec } from "./pagination/cursor.ts";
import { storiesRoutes } from "./stories/routes.ts";
import { webhookDeliveriesRoutes } from "./webhook-deliveries/routes.ts";
import { webhookEndpointsRoutes } from "./webhook-endpoints/routes.ts";

export interface ClientApiOptions {
  /** Without a database every route answers 503 api_unavailable. */
  db: Db | undefined;
  config: Pick<Config, "SERVICE_ENV" | "SECRETS_KEY" | "NEWSROOM_HOST" | "PUBLIC_BASE_URL">;
  keyUsage?: KeyUsageOptions;
  /**
   * Key records and answers kept in memory. Give one only when every change to the data it
   * holds is announced on a bus whose events `dropOnChange` receives before the writer answers
   * (the in-process bus of the embedded mode); without it every request reads the database.
   */
  cache?: ReadCache;
}

/**
 * The client API as an Elysia app plus what it holds (the `last_used_at` batch). Every response,
 * errors included, carries `Cache-Control: private, no-store`.
 */
export function createClientApiApp(options: ClientApiOptions) {
  const keyUsage = new KeyUsage(options.db, options.keyUsage);
  const deps: ClientApiDeps = {
    db: options.db,
    findKey: keyFinder(options.db!, options.cache),
    cache: options.cache,
    serviceEnv: options.config.SERVICE_ENV,
    cursors: new CursorCodec(secretsKey(options.config as Config)),
    keyUsage,
    newsroomHost: options.config.NEWSROOM_HOST,
    publicBaseUrl: options.config.PUBLIC_BASE_URL,
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

export interface ClientApiServiceOptions {
  /**
   * Whether to cache key records and answers. Default: only on the in-process bus, where the
   * workspace's change events are delivered before its write answers (the embedded mode). On
   * JetStream they arrive later, and a cached key could outlive its revocation: never cached.
   */
  cache?: boolean | ReadCacheOptions;
}

/** The read-only client API: stories, approvals, feeds, webhook endpoints and deliveries. */
export async function createClientApiService(
  runtime: Runtime,
  options: ClientApiServiceOptions = {},
): Promise<ServiceHandle & { cache: ReadCache | undefined }> {
  const wanted = options.cache ?? true;
  const cache =
    wanted !== false && runtime.bus.kind === "memory"
      ? new ReadCache(wanted === true ? {} : wanted)
      : undefined;
  const subscription = cache ? await dropOnChange(runtime.bus, cache) : undefined;
  const { app, keyUsage } = createClientApiApp({
    db: runtime.database.db,
    config: runtime.config,
    cache,
  });
  return {
    name: "client-api",
    app,
    cache,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {
      await subscription?.stop();
      await keyUsage.stop();
    },
  };
}
