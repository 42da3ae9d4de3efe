import { MemoryBus } from "@newsroom/shared/bus/memory";
import { type InsecureTargets, loadConfig } from "@newsroom/shared/config";
import type { ServiceHandle } from "@newsroom/shared/service";
import { testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createWebhooksService, type WebhooksOptions } from "@newsroom/webhooks/app";
import {
  type Harness,
  SECRETS_KEY,
  workspaceHarness,
} from "../../../services/workspace/test/support/harness.ts";

export { type Harness, SECRETS_KEY };

/**
 * The workspace's internal API with the webhooks service it sends endpoint commands to, in one
 * process on one database and bus (as the embedded start runs them): `h.call` reaches the
 * workspace, which calls webhooks in-process. `allowInsecureTargets` is the webhooks service's
 * switch (true, or the local ports it opens).
 */
export async function endpointsHarness(
  options: { allowInsecureTargets?: InsecureTargets; webhooks?: WebhooksOptions } = {},
): Promise<Harness & { webhooks: ServiceHandle }> {
  const database = await testDatabase();
  const bus = new MemoryBus();
  const insecure = options.allowInsecureTargets ?? false;
  const webhooks = await createWebhooksService(
    testRuntime({
      database,
      bus,
      config: loadConfig({
        PGLITE_DIR: "memory",
        SERVICE_ENV: "development",
        SECRETS_KEY: SECRETS_KEY.toString("base64"),
        WEBHOOK_ALLOW_INSECURE_TARGETS: String(insecure !== false),
        ...(Array.isArray(insecure) ? { WEBHOOK_INSECURE_TARGET_PORTS: insecure.join(",") } : {}),
      }),
    }),
    { pollIntervalMs: 50, attemptTimeoutMs: 3_000, ...options.webhooks },
  );
  const h = await workspaceHarness({
    database,
    bus,
    webhooks: (request) => webhooks.app.handle(request),
  });
  return {
    ...h,
    webhooks,
    async close() {
      await webhooks.stop();
      await h.close();
    },
  };
}
