/**
 * `npm start`: the whole service in one process on the embedded default: PGlite in ./.data/pg,
 * the in-process bus, in-memory rate limits, the local SES v2 emulator and demo data.
 * Set DATABASE_URL, NATS_URL or REDIS_URL to use the real ones instead.
 */
import { adminToken, loadConfigOrExit } from "@newsroom/shared/config";
import { removeLocalPorts, writeLocalPorts } from "@newsroom/shared/local-ports";
import { log } from "@newsroom/shared/log";
import { refuseBusyPort, startOrExit } from "@newsroom/shared/startup";
import { stopTracing } from "@newsroom/shared/tracing/index";
import { startTracing } from "@newsroom/shared/tracing/setup";
import { LOCAL_EMAIL, type LocalSes, localSesEndpoint, startLocalSes } from "./local-ses.ts";

const config = loadConfigOrExit();
// A person reads this terminal: short lines unless JSON is asked for.
log.setFormat(config.LOG_FORMAT ?? "pretty");

// A port something already listens on is refused at once, before the services and the database
// load (which takes seconds): the services' modules are imported only after this.
await startOrExit(async () => {
  await refuseBusyPort("PORT", config.PORT);
  await refuseBusyPort("WORKSPACE_PORT", config.WORKSPACE_PORT, "127.0.0.1");
  if (config.WORKSPACE_WEB_PORT !== undefined) {
    await refuseBusyPort("WORKSPACE_WEB_PORT", config.WORKSPACE_WEB_PORT, "127.0.0.1");
  }
  if (!config.SES_ENDPOINT) {
    await refuseBusyPort("SES_LOCAL_PORT", config.SES_LOCAL_PORT, "127.0.0.1");
  }
});
// All the services in one process: one service name on its spans.
await startTracing(config, "newsroom");
const { startEmbedded } = await import("./embedded.ts");
const { addressLines, demoLines, linkLines, peopleLines } = await import("./demo-banner.ts");

const sesEndpoint = config.SES_ENDPOINT ?? localSesEndpoint(config.SES_LOCAL_PORT);
let ses: LocalSes | null = null;
// A PGlite folder held by another process (or a port taken meanwhile): one line naming the
// variable, exit 1.
const embedded = await startOrExit(async () => {
  // The emulator starts beside the database (its port is checked first, before anything starts).
  const localSes = config.SES_ENDPOINT ? null : startLocalSes(config.SES_LOCAL_PORT);
  const [local, started] = await Promise.all([
    localSes,
    startEmbedded({
      ...config,
      SES_ENDPOINT: sesEndpoint,
      FORMS_FROM_EMAIL: config.FORMS_FROM_EMAIL ?? LOCAL_EMAIL.FORMS_FROM_EMAIL,
      FORMS_TEAM_EMAIL: config.FORMS_TEAM_EMAIL ?? LOCAL_EMAIL.FORMS_TEAM_EMAIL,
    }),
  ]);
  ses = local;
  return started;
});
const { url, runtime } = embedded;
// Stop cleanly from the moment anything is printed: a signal before a handler exists kills at once.
let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("stopping");
  await embedded.stop();
  ses?.close();
  removeLocalPorts(config.LOCAL_PORTS_FILE);
  await stopTracing();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

// For `npm run admin` in another shell: where this start listens (and, in development, its token).
writeLocalPorts(
  {
    pid: process.pid,
    url,
    workspace_url: embedded.workspaceUrl,
    ses_url: sesEndpoint,
    admin_token: config.SERVICE_ENV === "development" ? adminToken(config) : undefined,
  },
  config.LOCAL_PORTS_FILE,
);

console.log(`
  Newsroom service (embedded)
${addressLines(url).join("\n")}
  API            ${url}  (try ${url}/v1/public/newsroom)
  Health         ${url}/health
  Workspace API  ${embedded.workspaceUrl}/internal/v1  (Authorization: Bearer ${config.ADMIN_TOKEN ? "$ADMIN_TOKEN" : adminToken(config)})
  Email inbox    ${ses ? `${sesEndpoint}/  (a page; JSON at ${sesEndpoint}/store)` : `${sesEndpoint} (SES_ENDPOINT)`}
  Database       ${config.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.PGLITE_DIR}`}
  Bus            ${runtime.bus.kind === "jetstream" ? "NATS JetStream" : "in-process"}
  Rate limits    ${runtime.rateLimits.kind}
${linkLines(config).join("\n")}
`);
const people = await peopleLines(runtime.database.db, config, { url, inbox: sesEndpoint });
const demo = await demoLines(runtime.database.db, config, embedded);
if (people.length + demo.length > 0) console.log(`${[...people, ...demo].join("\n")}\n`);
