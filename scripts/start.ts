/**
 * `npm start`: the whole service in one process on the embedded default: PGlite in ./.data/pg,
 * the in-process bus, in-memory rate limits, the local SES v2 emulator and demo data.
 * Set DATABASE_URL, NATS_URL or REDIS_URL to use the real ones instead.
 */
import { adminToken, loadConfigOrExit } from "@newsroom/shared/config";
import { log } from "@newsroom/shared/log";
import { checkPortFree, startOrExit } from "@newsroom/shared/startup";
import startSesEmulator from "aws-ses-v2-local";
import { startEmbedded } from "./embedded.ts";

const config = loadConfigOrExit();

let sesEndpoint = config.SES_ENDPOINT;
let ses: { close(): void } | null = null;
// A port in use or a PGlite folder held by another process: one line naming the variable, exit 1.
const embedded = await startOrExit(async () => {
  if (!sesEndpoint) {
    // The emulator does not report a port in use: ask first.
    checkPortFree("SES_LOCAL_PORT", config.SES_LOCAL_PORT, "127.0.0.1");
    ses = await startSesEmulator({ host: "127.0.0.1", port: config.SES_LOCAL_PORT });
    sesEndpoint = `http://127.0.0.1:${config.SES_LOCAL_PORT}`;
  }
  return startEmbedded({
    ...config,
    SES_ENDPOINT: sesEndpoint,
    FORMS_FROM_EMAIL: config.FORMS_FROM_EMAIL ?? "newsroom@localhost.example",
    FORMS_TEAM_EMAIL: config.FORMS_TEAM_EMAIL ?? "team@localhost.example",
  });
});
const { url, runtime } = embedded;

console.log(`
  Newsroom service (embedded)
  API            ${url}  (try ${url}/v1/public/newsroom)
  Health         ${url}/health
  Workspace API  ${embedded.workspaceUrl}/internal/v1  (Authorization: Bearer ${config.ADMIN_TOKEN ? "$ADMIN_TOKEN" : adminToken(config)})
  Email inbox    ${sesEndpoint}/store
  Database       ${config.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.PGLITE_DIR}`}
  Bus            ${runtime.bus.kind === "jetstream" ? "NATS JetStream" : "in-process"}
  Rate limits    ${runtime.rateLimits.kind}
`);
if (embedded.demoPeople.length > 0) {
  console.log(
    `  Web app: ${url}/app/  Sign in as a demo person; the code arrives in the email inbox (${sesEndpoint}/store):`,
  );
  for (const person of embedded.demoPeople) {
    console.log(`    ${person.email.padEnd(28)} ${person.role} of ${person.org}`);
  }
  console.log("");
}
if (embedded.testKey) {
  console.log(
    `  Demo data loaded. Test API key (shown once, every scope):\n    ${embedded.testKey}\n`,
  );
}

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("stopping");
  await embedded.stop();
  ses?.close();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
