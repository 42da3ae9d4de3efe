import {
  EdgeConfig,
  HumanCheckConfig,
  MailConfig,
  ProcessConfig,
  PublicAddressConfig,
  RuntimeConfig,
  SecretsConfig,
  WorkspaceServerConfig,
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
  // Confirmation links, the origins a newsletter sign-up may come from, the house newsroom
  // (HOUSE_ORG) the digest sends and the newsroom addresses (NEWSROOM_HOST) issues link to.
  PublicAddressConfig,
  // Signs the digest's unsubscribe links.
  SecretsConfig,
  // Sends the form emails, the digest and newsletters; keeps and reads the newsletter contact lists.
  MailConfig,
  HumanCheckConfig,
  // The bearer token of the mailings' internal API (the workspace's calls).
  T.Pick(WorkspaceServerConfig, ["ADMIN_TOKEN"]),
]);
export type FormsConfig = Static<typeof FormsConfig>;
