import {
  DomainVerificationConfig,
  EdgeConfig,
  GatewayRoutingConfig,
  MailConfig,
  ProcessConfig,
  PublicAddressConfig,
  RuntimeConfig,
  SchedulerConfig,
  SecretsConfig,
  ServiceCallsConfig,
  StatusPageConfig,
  WorkspaceServerConfig,
} from "@newsroom/shared/config-variables";
import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The workspace's environment, checked at boot (`loadConfigOrExit(WorkspaceConfig)` in main.ts).
 * Defaults and units are beside each variable in shared/src/config-variables.ts.
 */
export const WorkspaceConfig = T.Composite([
  // PORT is the gateway's: the default of the links (APP_URL, PUBLIC_BASE_URL, NEWSROOM_HOST).
  ProcessConfig,
  RuntimeConfig,
  // Whose X-Forwarded-For its own port (WORKSPACE_PORT) believes, and whose X-Client-Ip (the
  // gateway's: the person's address for the sign-in throttles).
  T.Pick(EdgeConfig, ["TRUSTED_PROXIES", "GATEWAY_ADDRESSES"]),
  // The house newsroom, the links of its pages and emails.
  PublicAddressConfig,
  // Seals signing secrets and single sign-on secrets, signs sign-in codes.
  SecretsConfig,
  // Sign-in codes and invitations (the forms service sends the digest and newsletters).
  T.Omit(MailConfig, ["SES_CONTACTS_ENDPOINT"]),
  WorkspaceServerConfig,
  // The scheduler: the least lead of a schedule, and how late a scheduled story may still publish.
  SchedulerConfig,
  // Single sign-on: the DNS servers that look up domain verification records.
  DomainVerificationConfig,
  // Distributed mode: the internal APIs of the services that own webhooks and mailings (the
  // digest and newsletter sends go to the forms service).
  ServiceCallsConfig,
  T.Pick(GatewayRoutingConfig, ["FORMS_URL", "PUBLIC_READ_URL"]),
  // The status page's prober: how often, the gateway's address, and the client API's (whose
  // readiness it probes besides the services above).
  StatusPageConfig,
  T.Pick(GatewayRoutingConfig, ["CLIENT_API_URL"]),
]);
export type WorkspaceConfig = Static<typeof WorkspaceConfig>;
