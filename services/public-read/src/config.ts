import {
  CdnPurgeConfig,
  CheckoutConfig,
  EdgeConfig,
  ProcessConfig,
  PublicAddressConfig,
  RuntimeConfig,
  WorkspaceServerConfig,
} from "@newsroom/shared/config-variables";
import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The public read service's environment, checked at boot (`runService(PublicReadConfig, ...)` in
 * main.ts). Defaults and units are beside each variable in shared/src/config-variables.ts.
 */
export const PublicReadConfig = T.Composite([
  ProcessConfig,
  RuntimeConfig,
  EdgeConfig,
  // The house newsroom, hosted newsroom addresses and the pages' links.
  PublicAddressConfig,
  CheckoutConfig,
  CdnPurgeConfig,
  // The internal preview route the workspace calls.
  T.Pick(WorkspaceServerConfig, ["ADMIN_TOKEN"]),
]);
export type PublicReadConfig = Static<typeof PublicReadConfig>;
