/**
 * GET /v1/stories?limit=25 with a valid key through the embedded gateway, against a bare
 * Bun.serve answering the same bytes from memory, in the same run: requests per second and
 * p50/p99 latency at 50 concurrent connections. Run:
 * `bun bench/client-api.bench.ts [seconds] [--layers]`. Prints a Markdown table for
 * bench/RESULTS.md.
 *
 * The embedded client API caches the key record and the page (dropped on the workspace's change
 * events). A third run, with the cache off, measures the path every request takes in distributed
 * mode (two queries: the key and the page), here on PGlite.
 *
 * `--layers` adds the layers one at a time, each answering the same bytes: the edge alone, the
 * edge and the gateway with an upstream answering from memory, and the edge with the client API
 * but no gateway. They show what each layer costs and so what bounds the full path.
 *
 * One key from one address would hit the limits (300 per key, 600 per address a minute) within a
 * second, and the bench would measure 429s. The gateway here counts every request in a real
 * memory store, as in production, but never refuses: the cost of the limit is measured, not its
 * effect.
 */
import os from "node:os";
import { createClientApiService } from "@newsroom/client-api/app";
import { createGateway } from "@newsroom/gateway/app";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http";
import { log } from "@newsroom/shared/log";
import { MemoryRateLimitStore, type RateLimitStore } from "@newsroom/shared/rate-limit";
import { openRuntime } from "@newsroom/shared/runtime";
import { seedDemo } from "@newsroom/workspace/demo/seed";
import { getter, type LoadResult, runLoad } from "./support/load.ts";

const SECONDS = Number(process.argv.slice(2).find((arg) => /^[0-9]+$/.test(arg)) ?? 10);
const LAYERS = process.argv.includes("--layers");
const CONCURRENCY = 50;
const PATH = "/v1/stories?limit=25";

type Result = LoadResult;

function load(url: string, headers: Record<string, string>): Promise<Result> {
  return runLoad(getter(url, headers), { seconds: SECONDS, concurrency: CONCURRENCY });
}

/** Counts like the memory store, never over the limit. */
class CountingOnly implements RateLimitStore {
  readonly kind = "memory";
  private readonly inner = new MemoryRateLimitStore();
  async hit(key: string, windowSeconds: number): Promise<number> {
    await this.inner.hit(key, windowSeconds);
    return 1;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

log.setSilent(true);
const config = loadConfig({ PGLITE_DIR: "memory" });
const runtime = await openRuntime(config);
const demo = await seedDemo(runtime.database.db, config.HOUSE_ORG, config.SERVICE_ENV);
type Handler = (request: Request) => Promise<Response>;

function gatewayTo(upstream: Handler) {
  return createGateway({
    config,
    mode: "embedded",
    rateLimits: new CountingOnly(),
    upstreams: { "client-api": upstream },
    readinessChecks: [],
  });
}

/** Serves `handle` through the edge, as the embedded server does, on a port of its own. */
function serve(handle: Handler) {
  const server = Bun.serve({ port: 0, fetch: edge(handle, { trustedProxies: "" }) });
  return { url: `http://localhost:${server.port}${PATH}`, stop: () => server.stop(true) };
}

const cachedApi = await createClientApiService(runtime);
const uncachedApi = await createClientApiService(runtime, { cache: false });
if (!cachedApi.cache || uncachedApi.cache) throw new Error("the cache is not as expected");
const cachedGateway = gatewayTo(async (request) => cachedApi.app.handle(request));
const uncachedGateway = gatewayTo(async (request) => uncachedApi.app.handle(request));
const cached = serve((request) => cachedGateway.handle(request));
const uncached = serve((request) => uncachedGateway.handle(request));

const headers = { authorization: `Bearer ${demo.testKey!}` };
const sample = await fetch(cached.url, { headers });
const body = await sample.text();
if (sample.status !== 200) throw new Error(`sample answered ${sample.status}: ${body}`);
if ((await (await fetch(uncached.url, { headers })).text()) !== body) {
  throw new Error("the cached and uncached answers differ");
}
const sampleHeaders = new Headers(sample.headers);
const fromMemory = () => new Response(body, { headers: sampleHeaders });
const bare = Bun.serve({ port: 0, fetch: fromMemory });

const apiResult = await load(cached.url, headers);
const bareResult = await load(`http://localhost:${bare.port}${PATH}`, headers);
const uncachedResult = await load(uncached.url, headers);
const layerResults: [string, Result][] = [];
if (LAYERS) {
  const memoryGateway = gatewayTo(async () => fromMemory());
  const layers: [string, Handler][] = [
    ["layer: edge alone, answering from memory", async () => fromMemory()],
    [
      "layer: edge + gateway, upstream answering from memory",
      async (request) => memoryGateway.handle(request),
    ],
    ["layer: edge + client API (cache on), no gateway", async (r) => cachedApi.app.handle(r)],
  ];
  for (const [name, handle] of layers) {
    const server = serve(handle);
    layerResults.push([name, await load(server.url, headers)]);
    await server.stop();
  }
}
await bare.stop(true);
await cached.stop();
await uncached.stop();
await cachedApi.stop();
await uncachedApi.stop();
await runtime.close();

const row = (name: string, r: Result) =>
  `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`;
const percent = (r: Result) => `${((r.rps / bareResult.rps) * 100).toFixed(1)}%`;
console.log(
  `${new Date().toISOString().slice(0, 10)}, GET ${PATH}, ${CONCURRENCY} connections, ${SECONDS} s, ` +
    `${Buffer.byteLength(body)} bytes per answer, load average ${os.loadavg()[0]!.toFixed(1)}, ` +
    `${os.cpus().length} cores\n`,
);
console.log("| server | requests/s | p50 ms | p99 ms | non-200 |");
console.log("|---|---|---|---|---|");
console.log(row("bare Bun.serve (same bytes)", bareResult));
console.log(row("client API via embedded gateway (cache on, as embedded)", apiResult));
console.log(row("client API via embedded gateway, cache off (distributed path)", uncachedResult));
for (const [name, result] of layerResults) console.log(row(name, result));
console.log(
  `\nratio: ${percent(apiResult)} of the bare server (cache off: ${percent(uncachedResult)})`,
);
process.exit(0);
