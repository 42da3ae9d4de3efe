/**
 * `npm run start:cluster`: the distributed mode on this machine: six processes (gateway,
 * public-read, forms, client-api, webhooks, workspace) against DATABASE_URL, NATS_URL and
 * REDIS_URL, the gateway proxying to the others. Ctrl-C stops them all. With `--demo`, also the
 * local SES emulator for email and the demo data (and its test key) that `npm start` has.
 */
import { adminToken, loadConfigOrExit } from "@newsroom/shared/config";
import { openDatabase } from "@newsroom/shared/db/index";
import {
  type PortVariable,
  refuseBusyPort,
  refuseListenedPort,
  startOrExit,
} from "@newsroom/shared/startup";
import { seedDemo } from "@newsroom/workspace/demo/seed";
import type { Subprocess } from "bun";
import { unreachableBackends } from "./cluster-backends.ts";
import { addressLines, demoLines, linkLines, peopleLines } from "./demo-banner.ts";
import { LOCAL_EMAIL, type LocalSes, startLocalSes } from "./local-ses.ts";

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
      env: {
        WORKSPACE_PORT: ports.workspace,
        PORT: ports.gateway,
        WEBHOOKS_URL: `http://127.0.0.1:${ports.webhooks}`,
        FORMS_URL: `http://127.0.0.1:${ports.forms}`,
        PUBLIC_READ_URL: `http://127.0.0.1:${ports.publicRead}`,
        // The status page's prober: the client API's readiness and reads through the gateway.
        CLIENT_API_URL: `http://127.0.0.1:${ports.clientApi}`,
        GATEWAY_URL: `http://127.0.0.1:${ports.gateway}`,
      },
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

/** Every process links to the gateway, the port people reach, not to its own PORT. */
function clusterLinks(gatewayPort: number, env: Record<string, string | undefined>) {
  const gateway = `http://localhost:${gatewayPort}`;
  return {
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || gateway,
    NEWSROOM_HOST: env.NEWSROOM_HOST || `${gateway}/newsrooms`,
    APP_URL: env.APP_URL || `${gateway}/app`,
  };
}

export function startCluster(
  ports: ClusterPorts,
  env: Record<string, string | undefined>,
  options: { output?: "inherit" | "ignore" } = {},
): Cluster {
  const plan = clusterPlan(ports);
  const links = clusterLinks(ports.gateway, env);
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

function emailLine(env: Record<string, string | undefined>, ses: LocalSes | null): string {
  const where = ses
    ? `the local emulator, inbox page ${ses.endpoint}/`
    : env.SES_ENDPOINT
      ? `SES_ENDPOINT ${env.SES_ENDPOINT}`
      : "Amazon SES";
  return env.FORMS_FROM_EMAIL ? where : `${where}; FORMS_FROM_EMAIL unset: forms answer 503`;
}

/** The ports `npm run start:cluster` takes: PORT and its neighbours, and WORKSPACE_PORT. */
function clusterPortsFrom(base: number, workspace: number): Required<ClusterPorts> {
  return {
    gateway: base,
    publicRead: base + 101,
    forms: base + 102,
    clientApi: base + 103,
    webhooks: base + 104,
    workspace,
    metrics: base + 201,
  };
}

/** What `npm run start:cluster` adds to PORT for each port it derives from it (0 for its own). */
export const PORT_OFFSETS = clusterPortList(clusterPortsFrom(0, 0)).flatMap(([variable, port]) =>
  variable === "PORT" ? [port] : [],
);

/** Every port the cluster would listen on, each with the variable that chose it. */
function clusterPortList(ports: ClusterPorts): [PortVariable, number][] {
  const { gateway, publicRead, forms, clientApi, webhooks, metrics } = ports;
  const fromPort = [gateway, publicRead, forms, clientApi, webhooks];
  if (metrics !== undefined) fromPort.push(...[0, 1, 2, 3, 4, 5].map((i) => metrics + i));
  return [
    ...fromPort.map((port): [PortVariable, number] => ["PORT", port]),
    ["WORKSPACE_PORT", ports.workspace],
  ];
}

if (import.meta.main) {
  const config = loadConfigOrExit();
  const base = config.PORT;
  const ports = clusterPortsFrom(base, config.WORKSPACE_PORT);
  // A port in use is refused at once, before anything starts (the processes would fail one by one).
  await startOrExit(async () => {
    await refuseBusyPort("PORT", ports.gateway);
    await refuseBusyPort("WORKSPACE_PORT", ports.workspace);
    // The ports PORT implies: a listener there is refused; a bind test could mistake the local
    // end of an outgoing connection for one.
    for (const [variable, port] of clusterPortList(ports)) await refuseListenedPort(variable, port);
  });
  const unreachable = await unreachableBackends(process.env);
  if (unreachable.length > 0) {
    for (const line of unreachable) console.error(line);
    process.exit(1);
  }
  // --demo: what `npm start` has and a bare cluster lacks: email to the local emulator, demo data.
  const demo = process.argv.includes("--demo");
  const env: Record<string, string | undefined> = { ...process.env };
  let ses: LocalSes | null = null;
  if (demo && !config.SES_ENDPOINT) {
    ses = await startOrExit(() => startLocalSes(config.SES_LOCAL_PORT));
    env.SES_ENDPOINT = ses.endpoint;
  }
  if (demo) {
    env.FORMS_FROM_EMAIL ||= LOCAL_EMAIL.FORMS_FROM_EMAIL;
    env.FORMS_TEAM_EMAIL ||= LOCAL_EMAIL.FORMS_TEAM_EMAIL;
  }
  const cluster = startCluster(ports, env);
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    ses?.close();
    process.exit(code);
  };
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
  try {
    await waitForReady(`http://127.0.0.1:${base}/health/ready`, 60_000);
  } catch {
    console.error(
      `Cannot start: the gateway's /health/ready on PORT ${base} did not answer 200 within 60 s (see the processes' logs above)`,
    );
    await stop(1);
  }
  console.log(`
  cluster up
  Gateway        http://localhost:${base}
${addressLines(`http://localhost:${base}`).join("\n")}
  Workspace API  http://127.0.0.1:${config.WORKSPACE_PORT}/internal/v1  (Authorization: Bearer ${config.ADMIN_TOKEN ? "$ADMIN_TOKEN" : adminToken(config)})
  Metrics        ports ${ports.metrics}-${ports.metrics + 5}
  Email          ${emailLine(env, ses)}
${linkLines(config).join("\n")}`);
  if (demo) {
    const database = await openDatabase({ url: config.DATABASE_URL, max: 1 });
    try {
      const seeded = await seedDemo(database.db, config.HOUSE_ORG, config.SERVICE_ENV);
      const people = await peopleLines(database.db, config, {
        url: `http://localhost:${base}`,
        inbox: ses?.endpoint ?? env.SES_ENDPOINT,
      });
      const demoData = await demoLines(database.db, config, seeded);
      console.log(`${[...people, ...demoData].join("\n")}\n`);
    } finally {
      await database.close();
    }
  } else {
    console.log("  No demo data or local email: npm run start:cluster -- --demo\n");
  }
}
