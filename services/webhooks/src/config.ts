import {
  EdgeConfig,
  MailConfig,
  ProcessConfig,
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
  // The email to the organization when an endpoint is disabled (no contact lists).
  T.Omit(MailConfig, ["SES_CONTACTS_ENDPOINT"]),
  // The link in that email points at the workspace web app. ADMIN_TOKEN: the internal API's
  // bearer token (the workspace calls it).
  T.Pick(WorkspaceServerConfig, ["APP_URL", "ADMIN_TOKEN"]),
  WebhookDeliveryConfig,
]);
export type WebhooksConfig = Static<typeof WebhooksConfig>;
