import { type EventBus, openBus, type Subscription } from "@newsroom/shared/bus/index";
import { loadConfigOrExit } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { SERVER_BODY_LIMIT, serverOptions } from "@newsroom/shared/http/server-safety";
import { log } from "@newsroom/shared/log";
import { serveMetrics } from "@newsroom/shared/metrics";
import { openRateLimitStore } from "@newsroom/shared/rate-limit";
import { onShutdown } from "@newsroom/shared/service";
import { startTracing } from "@newsroom/shared/tracing/setup";
import { PublicAnswerCache, subscribeAnswerPurges } from "./answer-cache.ts";
import { createGateway } from "./app.ts";
import { GatewayConfig } from "./config.ts";
import type { ServiceName } from "./routing.ts";
import { StatusCopies } from "./status-copies.ts";
import { httpUpstream, type Upstream } from "./upstream.ts";

/** The gateway as its own process: proxies by path prefix to the services' URLs. */
const config = loadConfigOrExit(GatewayConfig);
await startTracing(config, "gateway");
const targets: [ServiceName, string | undefined][] = [
  ["public-read", config.PUBLIC_READ_URL],
  ["forms", config.FORMS_URL],
  ["client-api", config.CLIENT_API_URL],
  ["workspace", config.WORKSPACE_URL],
];
const upstreams: Partial<Record<ServiceName, Upstream>> = {};
for (const [name, url] of targets) if (url) upstreams[name] = httpUpstream(url, name);

const rateLimits = openRateLimitStore(config.REDIS_URL, config.RATE_LIMIT_PREFIX);
// Public answers are kept only once purges can be heard, on the deployment's bus: the gateway
// starts and serves without NATS, and turns its answer cache on when NATS answers.
const answerCache = config.NATS_URL ? new PublicAnswerCache({ enabled: false }) : undefined;
let bus: EventBus | null = null;
let purges: Subscription | null = null;
let stopping = false;
async function hearPurges(natsUrl: string, cache: PublicAnswerCache): Promise<void> {
  while (!stopping) {
    try {
      bus = await openBus(natsUrl, {
        stream: config.NATS_STREAM,
        subjectPrefix: config.NATS_SUBJECT_PREFIX,
      });
      purges = await subscribeAnswerPurges(bus, cache);
      cache.enable();
      log.info("gateway answer cache on");
      return;
    } catch (error) {
      await bus?.close().catch(() => undefined);
      bus = null;
      log.warn("gateway answer cache off until NATS answers", {
        error: error instanceof Error ? error.message : String(error),
      });
      await Bun.sleep(5_000);
    }
  }
}
if (config.NATS_URL && answerCache) void hearPurges(config.NATS_URL, answerCache);
const gateway = createGateway({
  config,
  mode: "distributed",
  rateLimits,
  upstreams,
  answerCache,
  // The status page stays up, from its last good answers, while the workspace cannot be reached.
  statusCopies: new StatusCopies(),
  readinessChecks: targets
    .filter(([, url]) => url)
    .map(([name, url]) => ({
      name,
      check: async () => {
        const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
        if (!response.ok) throw new Error(`${name} not ready`);
      },
    })),
});
const server = Bun.serve({
  ...serverOptions(config),
  port: config.PORT,
  maxRequestBodySize: SERVER_BODY_LIMIT,
  fetch: edge((request) => gateway.handle(request), {
    trustedProxies: config.TRUSTED_PROXIES,
    compress: true,
  }),
});
const metrics = config.METRICS_PORT ? serveMetrics(config.METRICS_PORT) : null;
log.info("gateway listening", { port: server.port, upstreams: Object.keys(upstreams) });

onShutdown("gateway", async () => {
  await server.stop();
  stopping = true;
  await rateLimits.close();
  await purges?.stop();
  await bus?.close();
  metrics?.stop(true);
});
