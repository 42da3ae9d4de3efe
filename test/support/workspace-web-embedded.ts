import { adminToken } from "@newsroom/shared/config";
import { freePort } from "@newsroom/shared/testing/ports";
import { startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";
import {
  testClock,
  type WebHarness as WorkspaceWebHarness,
  webHarnessConfig,
  webHarnessOver,
} from "../../services/workspace/test/support/web-app.ts";

export {
  type Answer,
  orgWithMembers,
  ROLES,
  randomIp,
  signInAs,
  storyInReview,
  unique,
  WebClient,
} from "../../services/workspace/test/support/web-app.ts";

/** The workspace web harness over the whole embedded composition, which it also gives. */
export interface WebHarness extends WorkspaceWebHarness {
  /** The gateway's base URL: the web app at `${url}/app`, every public route beside it. */
  url: string;
  embedded: Embedded;
  /** The internal API's bearer token (for calls `admin` cannot make, such as uploads). */
  adminToken: string;
}

/**
 * The whole service embedded (memory PGlite) behind the gateway, with the SES emulator and a
 * moveable clock: for flows from the workspace's web app to another service (its public pages, the
 * client API, webhook deliveries). `env` adds or replaces configuration (such as
 * WEBHOOK_ALLOW_INSECURE_TARGETS).
 */
export async function webHarness(env: Record<string, string> = {}): Promise<WebHarness> {
  const ses = await startSesEmulator();
  const clock = testClock();
  const config = webHarnessConfig({ public: await freePort(), workspace: await freePort() }, ses, {
    PGLITE_DIR: "memory",
    ...env,
  });
  const embedded = await startEmbedded(config, { seed: false, now: clock.now });
  const harness = webHarnessOver({
    url: embedded.url,
    internalApi: `${embedded.workspaceUrl}/internal/v1`,
    adminToken: adminToken(config),
    runtime: embedded.runtime,
    ses,
    clock,
    stop: () => embedded.stop(),
  });
  return { ...harness, embedded, adminToken: adminToken(config) };
}
