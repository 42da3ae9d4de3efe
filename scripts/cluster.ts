/**
 * `npm run start:cluster`: the distributed mode on this machine: six processes (gateway,
 * public-read, forms, client-api, webhooks, workspace) against DATABASE_URL, NATS_URL and
 * REDIS_URL, the gateway proxying to the others. Ctrl-C stops them all.
 */
import type { Subprocess } from "bun";
import { unreachableBackends } from "./cluster-backends.ts";

export interface ClusterPorts {
  gateway: number;
  publicRead: number;
  forms: number;
  clientApi: number;
  webhooks: number;
  workspace: number;
  /** The first of six consecutive metrics ports, one per process. */
  metrics?: number;
}

export interface Cluster {
  ports: ClusterPorts;
  processes: Map<string, Subprocess>;
  /** Starts (or restarts) one process by name. */
  start(name: string): Subprocess;
  stop(): Promise<void>;
}

const root = new URL("../", import.meta.url).pathname;

export function clusterPlan(ports: ClusterPorts) {
  return {
    "public-read": { entry: "services/public-read/src/main.ts", env: { PORT: ports.publicRead } },
    forms: { entry: "services/forms/src/main.ts", env: { PORT: ports.forms } },
    "client-api": { entry: "services/client-api/src/main.ts", env: { PORT: ports.clientApi } },
    webhooks: { entry: "services/webhooks/src/main.ts", env: { PORT: ports.webhooks } },
    workspace: {
      entry: "services/workspace/src/main.ts",
      // Its web app's public base is the gateway's /app.
      env: { WORKSPACE_PORT: ports.workspace, PORT: ports.gateway },
    },
    gateway: {
      entry: "gateway/src/main.ts",
      env: {
        PORT: ports.gateway,
        PUBLIC_READ_URL: `http://127.0.0.1:${ports.publicRead}`,
        FORMS_URL: `http://127.0.0.1:${ports.forms}`,
        CLIENT_API_URL: `http://127.0.0.1:${ports.clientApi}`,
        WORKSPACE_URL: `http://127.0.0.1:${ports.workspace}`,
      },
    },
  } as const;
}

export function startCluster(
  ports: ClusterPorts,
  env: Record<string, string | undefined>,
  options: { output?: "inherit" | "ignore" } = {},
): Cluster {
  const plan = clusterPlan(ports);
  // Every process links to the gateway, the port people reach, not to its own PORT.
  const gateway = `http://localhost:${ports.gateway}`;
  const links = {
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || gateway,
    NEWSROOM_HOST: env.NEWSROOM_HOST || `${gateway}/newsrooms`,
    APP_URL: env.APP_URL || `${gateway}/app`,
  };
  const processes = new Map<string, Subprocess>();
  const names = Object.keys(plan);
  const start = (name: string) => {
    const entry = plan[name as keyof typeof plan];
    if (!entry) throw new Error(`unknown process ${name}`);
    const extra = Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, String(v)]));
    if (ports.metrics) extra.METRICS_PORT = String(ports.metrics + names.indexOf(name));
    const child = Bun.spawn([process.execPath, entry.entry], {
      cwd: root,
      env: { ...env, ...links, ...extra },
      stdout: options.output ?? "inherit",
      stderr: options.output ?? "inherit",
    });
    processes.set(name, child);
    return child;
  };
  // Services first, the gateway last (it probes them for readiness).
  for (const name of Object.keys(plan)) start(name);
  return {
    ports,
    processes,
    start,
    stop: async () => {
      for (const child of processes.values()) child.kill("SIGTERM");
      await Promise.all([...processes.values()].map((child) => child.exited));
    },
  };
}

/** Resolves when GET url answers 200, or throws after `ms`. */
export async function waitForReady(url: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await Bun.sleep(200);
  }
  throw new Error(`${url} not ready after ${ms} ms`);
}

if (import.meta.main) {
  const unreachable = await unreachableBackends(process.env);
  if (unreachable.length > 0) {
    for (const line of unreachable) console.error(line);
    process.exit(1);
  }
  const base = Number(process.env.PORT ?? 3000);
  const cluster = startCluster(
    {
      gateway: base,
      publicRead: base + 101,
      forms: base + 102,
      clientApi: base + 103,
      webhooks: base + 104,
      workspace: Number(process.env.WORKSPACE_PORT ?? 4001),
      metrics: base + 201,
    },
    process.env,
  );
  await waitForReady(`http://127.0.0.1:${base}/health/ready`, 60_000).catch((error) => {
    console.error(String(error));
  });
  console.log(
    `cluster up: gateway http://localhost:${base}, workspace http://127.0.0.1:${cluster.ports.workspace}, metrics on ports ${base + 201}-${base + 206}`,
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
