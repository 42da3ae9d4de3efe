import {
  EdgeConfig,
  ProcessConfig,
  PublicAddressConfig,
  RuntimeConfig,
  SecretsConfig,
  WebhookDeliveryConfig,
  WorkspaceServerConfig,
} from "@newsroom/shared/config-variables";
import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The webhooks service's environment, checked at boot (`runService(WebhooksConfig, ...)` in
 * main.ts). Defaults and units are beside each variable in shared/src/config-variables.ts.
 */
export const WebhooksConfig = T.Composite([
  ProcessConfig,
  RuntimeConfig,
  EdgeConfig,
  // Opens the endpoints' signing secrets, sealed at rest.
  SecretsConfig,
  // The internal API's bearer token (the workspace calls it).
  T.Pick(WorkspaceServerConfig, ["ADMIN_TOKEN"]),
  WebhookDeliveryConfig,
  // The canonical newsroom page a post written into a client's CMS links back to.
  PublicAddressConfig,
]);
export type WebhooksConfig = Static<typeof WebhooksConfig>;
