import {
  BusConfig,
  DatabaseConfig,
  EdgeConfig,
  GatewayRoutingConfig,
  MailConfig,
  ProcessConfig,
  PublicAddressConfig,
  RateLimitConfig,
} from "@newsroom/shared/config-variables";
import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The gateway's environment, checked at boot (`loadConfigOrExit(GatewayConfig)` in main.ts).
 * Defaults and units are beside each variable in shared/src/config-variables.ts.
 */
export const GatewayConfig = T.Composite([
  ProcessConfig,
  // Only to say in /health which database the deployment uses.
  T.Pick(DatabaseConfig, ["DATABASE_URL"]),
  RateLimitConfig,
  // The gateway is the edge: it believes X-Forwarded-For from these, and sets X-Client-Ip.
  T.Pick(EdgeConfig, ["TRUSTED_PROXIES"]),
  // Which host and path prefix name a public page rather than the API.
  T.Pick(PublicAddressConfig, ["NEWSROOM_HOST", "PUBLIC_BASE_URL"]),
  GatewayRoutingConfig,
  // Only for the index page's link to the local email inbox, in development.
  T.Pick(MailConfig, ["SES_ENDPOINT"]),
  // Purges of its public answer cache arrive on the bus; without NATS_URL it keeps none.
  BusConfig,
]);
export type GatewayConfig = Static<typeof GatewayConfig>;
