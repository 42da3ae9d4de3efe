import type { Static, TObject } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";
import { type Config, loadConfigOrExit } from "./config.ts";
import type { EdgeConfig, ProcessConfig, RuntimeConfig } from "./config-variables.ts";
import { jsonResponse } from "./content-types.ts";
import { edge } from "./http/edge.ts";
import { SERVER_BODY_LIMIT, serverOptions } from "./http/server-safety.ts";
import { pathOf } from "./http/urls.ts";
import { log } from "./log.ts";
import { serveMetrics } from "./metrics.ts";
import { openRuntime, type Runtime } from "./runtime.ts";
import { serveOn, startOrExit } from "./startup.ts";

/** A readiness check: resolves when its part works, throws otherwise. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

const READY_CACHE_MS = 15_000;
/** A failure is asked again soon: a process that has just come up is not held back 15 s. */
const NOT_READY_CACHE_MS = 1_000;

/**
 * Readiness, cached in this process so probes do not hammer the database: a success 15 s, a
 * failure 1 s. Answers `{ status, checks }`; `ok` is false when any check failed or took over 3 s.
 */
export function readiness(checks: ReadinessCheck[], now: () => number = Date.now) {
  let cached: { at: number; ok: boolean; body: unknown } | null = null;
  return async (): Promise<{ ok: boolean; body: unknown }> => {
    const age = cached ? now() - cached.at : Number.POSITIVE_INFINITY;
    if (cached && age < (cached.ok ? READY_CACHE_MS : NOT_READY_CACHE_MS)) return cached;
    const results: Record<string, "ok" | "failing"> = {};
    await Promise.all(
      checks.map(async ({ name, check }) => {
        results[name] = await withTimeout(check(), 3_000).then(
          () => "ok" as const,
          () => "failing" as const,
        );
      }),
    );
    const ok = Object.values(results).every((r) => r === "ok");
    cached = { at: now(), ok, body: { status: ok ? "ready" : "not_ready", checks: results } };
    return cached;
  };
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The readiness route every process serves: 200 or 503, never cached by others. */
export function readinessResponse(ready: ReturnType<typeof readiness>) {
  return async (): Promise<Response> => {
    const result = await ready();
    return jsonResponse(result.body, {
      status: result.ok ? 200 : 503,
      headers: { "cache-control": "no-store" },
    });
  };
}

/** What every service module gives: its app, readiness checks, and a way to stop its work. */
export interface ServiceHandle {
  name: string;
  app: AnyElysia;
  readiness: ReadinessCheck[];
  stop(): Promise<void>;
}

/** How requests enter a service: its app's `handle`, the one way in (docs/architecture.md). */
export function serviceEntry(service: ServiceHandle): (request: Request) => Promise<Response> {
  return (request) => service.app.handle(request);
}

export type ServiceFactory<C extends RuntimeConfig = Config> = (
  runtime: Runtime<C>,
) => Promise<ServiceHandle>;

/** What every service run as its own process reads, besides its own variables. */
type ServiceProcessConfig = ProcessConfig & RuntimeConfig & EdgeConfig;

/**
 * The entry point of a service run as its own process: its config (`schema`, the service's own
 * variables) from the environment, its own runtime, the app on PORT, and a graceful stop on SIGTERM.
 */
export async function runService<S extends TObject>(
  schema: S,
  factory: ServiceFactory<Static<S> & ServiceProcessConfig>,
): Promise<void> {
  await startOrExit(() => startService(schema, factory));
}

async function startService<S extends TObject>(
  schema: S,
  factory: ServiceFactory<Static<S> & ServiceProcessConfig>,
): Promise<void> {
  // Every service's schema composes ProcessConfig, RuntimeConfig and EdgeConfig (a test checks).
  const config = loadConfigOrExit(schema) as Static<S> & ServiceProcessConfig;
  const runtime = await openRuntime(config);
  const service = await factory(runtime);
  const ready = readinessResponse(readiness(service.readiness));
  const handle = serviceEntry(service);
  const server = serveOn("PORT", {
    ...serverOptions(config),
    port: config.PORT,
    maxRequestBodySize: SERVER_BODY_LIMIT,
    fetch: serviceEdge(config, (request) =>
      pathOf(request.url) === "/health/ready" ? ready() : handle(request),
    ),
  });
  const metrics = config.METRICS_PORT ? serveMetrics(config.METRICS_PORT) : null;
  log.info("listening", { service: service.name, port: server.port, metrics: metrics?.port });
  onShutdown(service.name, async () => {
    // Stop accepting, let in-flight requests finish, then the service's own work, then pools.
    await server.stop();
    await service.stop();
    await runtime.close();
    metrics?.stop(true);
  });
}

/** The edge of a service run as its own process, behind the gateway. */
export function serviceEdge(
  config: Pick<Config, "TRUSTED_PROXIES" | "GATEWAY_ADDRESSES">,
  handle: (request: Request) => Promise<Response>,
) {
  return edge(handle, {
    trustedProxies: config.TRUSTED_PROXIES,
    gatewayAddresses: config.GATEWAY_ADDRESSES,
    behindGateway: true,
  });
}

const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Runs `drain` on SIGTERM or SIGINT and exits 0; exits 1 if draining takes over 10 s.
 */
export function onShutdown(name: string, drain: () => Promise<void>): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { service: name });
    const deadline = setTimeout(() => {
      log.error("shutdown took too long; exiting", { service: name });
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    try {
      await drain();
      clearTimeout(deadline);
      process.exit(0);
    } catch (error) {
      log.error("shutdown failed", { service: name, error: String(error) });
      process.exit(1);
    }
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
