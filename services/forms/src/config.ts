import {
  EdgeConfig,
  HumanCheckConfig,
  MailConfig,
  ProcessConfig,
  PublicAddressConfig,
  RuntimeConfig,
  SecretsConfig,
} from "@newsroom/shared/config-variables";
import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The forms service's environment, checked at boot (`runService(FormsConfig, ...)` in main.ts).
 * Defaults and units are beside each variable in shared/src/config-variables.ts.
 */
export const FormsConfig = T.Composite([
  ProcessConfig,
  RuntimeConfig,
  EdgeConfig,
  // Confirmation links, and the origins a newsletter sign-up may come from.
  PublicAddressConfig,
  // Signs the digest's unsubscribe links.
  SecretsConfig,
  // Sends the form emails and keeps the newsletter contact lists.
  MailConfig,
  HumanCheckConfig,
]);
export type FormsConfig = Static<typeof FormsConfig>;
