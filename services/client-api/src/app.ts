import { type Config, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { ReadCache, type ReadCacheOptions } from "@newsroom/shared/read-cache";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";
import { approvalsRoutes } from "./approvals/routes.ts";
import { KeyUsage, type KeyUsageOptions } from "./auth/key-usage.ts";
import { keyLookup } from "./auth/store.ts";
import { type AnswerCache, repeatTargets } from "./caching/answers.ts";
import { repeatedTarget } from "./caching/repeat-targets.ts";
import type { ClientApiConfig } from "./config.ts";
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
   * Answers kept in memory, keyed by the organization's data version read with the key on each
   * request; without it every request reads its answer from the database.
   */
  cache?: AnswerCache;
}

/**
 * The client API as an Elysia app plus what it holds (the key-use batch). Every response,
 * errors included, carries `Cache-Control: private, no-store`, except a feed: `private, no-cache`
 * with an `ETag` (feeds/conditional.ts).
 */
export function createClientApiApp(options: ClientApiOptions) {
  const keyUsage = new KeyUsage(options.db, options.keyUsage);
  const deps: ClientApiDeps = {
    db: options.db,
    findKey: options.db ? keyLookup(options.db) : async () => null,
    cache: options.cache,
    targets: repeatTargets(),
    serviceEnv: options.config.SERVICE_ENV,
    cursors: new CursorCodec(secretsKey(options.config as Config)),
    keyUsage,
    newsroomHost: options.config.NEWSROOM_HOST,
    publicBaseUrl: options.config.PUBLIC_BASE_URL,
  };
  const kit = httpKit("client-api", {
    // A GET target answered before skips the router (the same key check, the same answer).
    earlyAnswer: repeatedTarget(deps),
    headers: { "cache-control": "private, no-store" },
  });
  const app = new Elysia({ name: "client-api" })
    .use(kit)
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
   * Whether to cache answers (default: yes, in both modes). Exact on every replica: an answer is
   * found only under the data version read with the key on the same request.
   */
  cache?: boolean | ReadCacheOptions;
}

/** The read-only client API: stories, approvals, feeds, webhook endpoints and deliveries. */
export async function createClientApiService(
  runtime: Runtime<ClientApiConfig>,
  options: ClientApiServiceOptions = {},
): Promise<ServiceHandle & { cache: AnswerCache | undefined }> {
  const wanted = options.cache ?? true;
  const cache = wanted === false ? undefined : new ReadCache<string>(wanted === true ? {} : wanted);
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
      await keyUsage.stop();
    },
  };
}
