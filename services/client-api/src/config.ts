import {
  EdgeConfig,
  ProcessConfig,
  PublicAddressConfig,
  RuntimeConfig,
  SecretsConfig,
} from "@newsroom/shared/config-variables";
import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The client API's environment, checked at boot (`runService(ClientApiConfig, ...)` in main.ts).
 * Defaults and units are beside each variable in shared/src/config-variables.ts.
 */
export const ClientApiConfig = T.Composite([
  ProcessConfig,
  RuntimeConfig,
  EdgeConfig,
  // Story links (`url`) and hosted newsroom addresses in answers.
  T.Pick(PublicAddressConfig, ["NEWSROOM_HOST", "PUBLIC_BASE_URL"]),
  // Signs the pagination cursors.
  SecretsConfig,
]);
export type ClientApiConfig = Static<typeof ClientApiConfig>;
