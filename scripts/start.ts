/**
 * `npm start`: the whole service in one process on the embedded default: PGlite in ./.data/pg,
 * the in-process bus, in-memory rate limits, the local SES v2 emulator and demo data.
 * Set DATABASE_URL, NATS_URL or REDIS_URL to use the real ones instead.
 */
import { createClientApiApp } from "@newsroom/client-api/app";
import { createFormsApp } from "@newsroom/forms/app";
import { createGateway } from "@newsroom/gateway/app";
import { createPublicReadApp } from "@newsroom/public-read/app";
import { adminToken, loadConfigOrExit } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http";
import { log } from "@newsroom/shared/log";
import { openRuntime } from "@newsroom/shared/runtime";
import { seedDemo } from "@newsroom/workspace/demo/seed";
import { startWorkspace } from "@newsroom/workspace/server";
import startSesEmulator from "aws-ses-v2-local";

const config = loadConfigOrExit();

let sesEndpoint = config.SES_ENDPOINT;
let ses: { close(): void } | null = null;
if (!sesEndpoint) {
  ses = await startSesEmulator({ host: "127.0.0.1", port: config.SES_LOCAL_PORT });
  sesEndpoint = `http://127.0.0.1:${config.SES_LOCAL_PORT}`;
}

const runtime = await openRuntime({
  ...config,
  SES_ENDPOINT: sesEndpoint,
  FORMS_FROM_EMAIL: config.FORMS_FROM_EMAIL ?? "newsroom@localhost.example",
  FORMS_TEAM_EMAIL: config.FORMS_TEAM_EMAIL ?? "team@localhost.example",
});
const { db } = runtime.database;
const demo = await seedDemo(db, config.HOUSE_ORG);

const workspace = startWorkspace(runtime.config, db, runtime.bus, { hostname: "127.0.0.1" });

const publicRead = createPublicReadApp();
const forms = createFormsApp();
const clientApi = createClientApiApp();
const gateway = createGateway({
  config: runtime.config,
  mode: "embedded",
  rateLimits: runtime.rateLimits,
  upstreams: {
    "public-read": async (request) => publicRead.handle(request),
    forms: async (request) => forms.handle(request),
    "client-api": async (request) => clientApi.handle(request),
  },
  readinessChecks: [{ name: "database", check: () => runtime.database.ping() }],
});
const server = Bun.serve({
  port: config.PORT,
  maxRequestBodySize: 1024 * 1024,
  fetch: edge((request) => gateway.handle(request), { trustedProxies: config.TRUSTED_PROXIES }),
});

const base = `http://localhost:${server.port}`;
console.log(`
  Newsroom service (embedded)
  API            ${base}  (try ${base}/v1/public/newsroom)
  Health         ${base}/health
  Workspace API  ${workspace.url}/internal/v1  (Authorization: Bearer ${config.ADMIN_TOKEN ? "$ADMIN_TOKEN" : adminToken(config)})
  Email inbox    ${sesEndpoint}/store
  Database       ${config.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.PGLITE_DIR}`}
  Bus            ${runtime.bus.kind === "jetstream" ? "NATS JetStream" : "in-process"}
  Rate limits    ${runtime.rateLimits.kind}
`);
if (demo.testKey) {
  console.log(`  Demo data loaded. Test API key (shown once, every scope):\n    ${demo.testKey}\n`);
}

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("stopping");
  await server.stop();
  await workspace.stop();
  await runtime.close();
  ses?.close();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
