import type { Static, TObject } from "@sinclair/typebox";
import { Kind } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { wholePrivateRangeIn } from "./client-ip.ts";
import {
  type Config,
  ConfigSchema,
  DEFAULT_SCHEDULE_MIN_LEAD_SECONDS,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE,
} from "./config-variables.ts";
import type { DatabaseTimeouts } from "./db/timeouts.ts";
import { log } from "./log.ts";

/**
 * The one loader of the environment. Each service loads its own schema (its `config.ts`, composed
 * from the parts in `config-variables.ts`); without a schema every variable of every service is
 * loaded (the embedded start, tests). A bad value names the variable and stops start-up.
 */
export { type Config, ConfigSchema };

type Environment = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = "ConfigError";
  }
}

/** Variables whose values are secret or may hold a password: a message never shows them. */
const SECRET_VARIABLES = new Set([
  "ADMIN_TOKEN",
  "SECRETS_KEY",
  "TURNSTILE_SECRET",
  "STRIPE_SECRET_KEY",
  "DATABASE_URL",
  "REDIS_URL",
  "NATS_URL",
]);
/** A URL with a user (and perhaps a password) before its host. */
const CREDENTIALS_IN_URL = /\/\/[^/\s]*@/;

/** The bad value for the message, when it is neither secret nor carries credentials. */
function shownValue(variable: string, value: unknown): string {
  if (value === undefined || SECRET_VARIABLES.has(variable)) return "";
  if (CREDENTIALS_IN_URL.test(String(value))) return "";
  return ` (got ${JSON.stringify(value)})`;
}

/** The variables a config was loaded with: the rules below check only the ones it declares. */
type Loaded = Partial<Config>;

/**
 * Reads, converts and checks the environment against `schema` (every service's variables when
 * left out). Throws ConfigError naming the first bad variable.
 */
export function loadConfig(env?: Environment): Config;
export function loadConfig<S extends TObject>(schema: S, env?: Environment): Static<S>;
export function loadConfig(schemaOrEnv?: TObject | Environment, given?: Environment): unknown {
  const [schema, env] = isSchema(schemaOrEnv)
    ? [schemaOrEnv, given ?? process.env]
    : [ConfigSchema, schemaOrEnv ?? process.env];
  const declares = (variable: string) => variable in schema.properties;
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  // Before the defaults fill `raw` in.
  const linksGiven = { base: "PUBLIC_BASE_URL" in raw, newsroom: "NEWSROOM_HOST" in raw };
  const insecureTargetsGiven = "WEBHOOK_ALLOW_INSECURE_TARGETS" in raw;
  const converted = Value.Convert(schema, Value.Default(schema, raw));
  const error = Value.Errors(schema, converted).First();
  if (error) {
    const variable = error.path.replace(/^\//, "") || "environment";
    const shown = shownValue(variable, raw[variable]);
    throw new ConfigError(variable, `is invalid: ${error.message}${shown}`);
  }
  const config = converted as Loaded;
  const ports = config.WEBHOOK_INSECURE_TARGET_PORTS;
  if (ports?.split(",").some((port) => Number(port) < 1 || Number(port) > 65_535)) {
    throw new ConfigError(
      "WEBHOOK_INSECURE_TARGET_PORTS",
      `is invalid: ports are 1 to 65535${shownValue("WEBHOOK_INSECURE_TARGET_PORTS", ports)}`,
    );
  }
  // A receiver on this machine (http://127.0.0.1:<port>, http://localhost:<port>) needs no
  // restart in development: the switch is on there unless written false.
  if (
    declares("WEBHOOK_ALLOW_INSECURE_TARGETS") &&
    !insecureTargetsGiven &&
    config.SERVICE_ENV === "development"
  ) {
    config.WEBHOOK_ALLOW_INSECURE_TARGETS = true;
  }
  // Links point at the port actually served unless an address is given.
  if (declares("PUBLIC_BASE_URL") && !linksGiven.base) {
    config.PUBLIC_BASE_URL = `http://localhost:${config.PORT}`;
  }
  if (declares("NEWSROOM_HOST") && !linksGiven.newsroom) {
    config.NEWSROOM_HOST = `http://localhost:${config.PORT}/newsrooms`;
  }
  checkDeploymentRules(config, env, declares);
  return config;
}

function isSchema(value: TObject | Environment | undefined): value is TObject {
  return value !== undefined && Kind in value;
}

/**
 * Every deployment but development holds real data: it needs its own secrets and refuses the
 * test switches. Each rule applies to a process whose schema declares the variable.
 */
function checkDeploymentRules(
  config: Loaded,
  env: Environment,
  declares: (variable: string) => boolean,
): void {
  const where = config.SERVICE_ENV;
  if (where === "development") return;
  for (const variable of [
    "WEBHOOK_ALLOW_INSECURE_TARGETS",
    "WEBHOOK_INSECURE_TARGET_PORTS",
    "FORMS_CLIENT_LIMIT_PER_MINUTE",
  ]) {
    if (config[variable as keyof Loaded]) {
      throw new ConfigError(variable, `is a test switch: refused in ${where}`);
    }
  }
  const schedule = declares("WEBHOOK_RETRY_SCHEDULE") ? env.WEBHOOK_RETRY_SCHEDULE : undefined;
  if (schedule && schedule !== DEFAULT_WEBHOOK_RETRY_SCHEDULE) {
    throw new ConfigError("WEBHOOK_RETRY_SCHEDULE", `is a test switch: refused in ${where}`);
  }
  const lead = declares("SCHEDULE_MIN_LEAD_SECONDS") ? config.SCHEDULE_MIN_LEAD_SECONDS : undefined;
  if (lead !== undefined && lead !== DEFAULT_SCHEDULE_MIN_LEAD_SECONDS) {
    throw new ConfigError("SCHEDULE_MIN_LEAD_SECONDS", `is a test switch: refused in ${where}`);
  }
  if (config.HUMAN_CHECK_MODE === "test") {
    throw new ConfigError("HUMAN_CHECK_MODE", `\`test\` is refused in ${where}`);
  }
  if (config.HUMAN_CHECK_MODE === "off" && !config.HUMAN_CHECK_OFF_ACKNOWLEDGED) {
    throw new ConfigError(
      "HUMAN_CHECK_MODE",
      `is off in ${where}: the mapping call (/v1/public/start) relies on the human check. ` +
        "Set it to turnstile, or set HUMAN_CHECK_OFF_ACKNOWLEDGED=true to run without it",
    );
  }
  // Whoever else holds an address of such a range could name any client to the services.
  const wide = config.GATEWAY_ADDRESSES ? wholePrivateRangeIn(config.GATEWAY_ADDRESSES) : null;
  if (wide) {
    throw new ConfigError(
      "GATEWAY_ADDRESSES",
      `takes in a whole private range (${wide}): refused in ${where}. Name the gateway's own ` +
        "addresses (its pods' addresses or a subnet only they get)",
    );
  }
  // The session cookie is Secure only when the app is served over https.
  if (config.APP_URL?.startsWith("http://")) {
    throw new ConfigError(
      "APP_URL",
      `is http: refused in ${where}, where the session cookie must be Secure (use https)`,
    );
  }
  if (declares("SECRETS_KEY")) {
    if (!config.SECRETS_KEY) throw new ConfigError("SECRETS_KEY", `is required in ${where}`);
    if (config.SECRETS_KEY === DEVELOPMENT_SECRETS_KEY) {
      throw new ConfigError("SECRETS_KEY", `is the development key: refused in ${where}`);
    }
  }
  if (declares("ADMIN_TOKEN")) {
    if (!config.ADMIN_TOKEN) throw new ConfigError("ADMIN_TOKEN", `is required in ${where}`);
    if (config.ADMIN_TOKEN === DEVELOPMENT_ADMIN_TOKEN) {
      throw new ConfigError("ADMIN_TOKEN", `is the development token: refused in ${where}`);
    }
  }
  for (const variable of SECRET_VARIABLES) {
    const value = config[variable as keyof Config];
    if (typeof value === "string" && PLACEHOLDER.test(value)) {
      throw new ConfigError(variable, `holds a placeholder value: refused in ${where}`);
    }
  }
}

/** Words that mark an example value to replace (the manifests' `change-me`), never a secret. */
const PLACEHOLDER = /change-?me|placeholder/i;

/** For entry points: load the config (of `schema`, or every variable) or print the reason and exit 1. */
export function loadConfigOrExit(env?: Environment): Config;
export function loadConfigOrExit<S extends TObject>(schema: S, env?: Environment): Static<S>;
export function loadConfigOrExit(schemaOrEnv?: TObject | Environment, given?: Environment) {
  try {
    const config: Loaded = isSchema(schemaOrEnv)
      ? loadConfig(schemaOrEnv, given)
      : loadConfig(schemaOrEnv);
    warnAboutAcknowledgedRisks(config);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Said once at start: a deployment holding real data that runs without the human check. */
function warnAboutAcknowledgedRisks(config: Loaded): void {
  if (config.SERVICE_ENV !== "development" && config.HUMAN_CHECK_MODE === "off") {
    log.warn(
      "HUMAN_CHECK_MODE is off (HUMAN_CHECK_OFF_ACKNOWLEDGED=true): forms and the mapping call " +
        "(/v1/public/start) accept automated submissions",
      { environment: config.SERVICE_ENV },
    );
  }
}

/** The PostgreSQL session and connection limits, from the DATABASE_*_TIMEOUT_MS variables. */
export function databaseTimeouts(
  config: Pick<
    Config,
    | "DATABASE_STATEMENT_TIMEOUT_MS"
    | "DATABASE_LOCK_TIMEOUT_MS"
    | "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS"
    | "DATABASE_CONNECT_TIMEOUT_MS"
  >,
): DatabaseTimeouts {
  return {
    statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    lockMs: config.DATABASE_LOCK_TIMEOUT_MS,
    idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    connectMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  };
}

/** The workspace web app's public base (APP_URL), without a trailing slash. */
export function appUrl(config: Pick<Config, "APP_URL" | "PORT">): string {
  return (config.APP_URL ?? `http://localhost:${config.PORT}/app`).replace(/\/+$/, "");
}

/**
 * Which local receivers webhook endpoints may name (development and tests): `true` for any port
 * (WEBHOOK_ALLOW_INSECURE_TARGETS=true alone), the ports of WEBHOOK_INSECURE_TARGET_PORTS when
 * given, `false` for none.
 */
export type InsecureTargets = boolean | readonly number[];

export function insecureWebhookTargets(
  config: Pick<Config, "WEBHOOK_ALLOW_INSECURE_TARGETS" | "WEBHOOK_INSECURE_TARGET_PORTS">,
): InsecureTargets {
  if (config.WEBHOOK_INSECURE_TARGET_PORTS) {
    return config.WEBHOOK_INSECURE_TARGET_PORTS.split(",").map(Number);
  }
  return config.WEBHOOK_ALLOW_INSECURE_TARGETS;
}

/** Seconds between webhook attempts, from WEBHOOK_RETRY_SCHEDULE. */
export function retrySchedule(config: Pick<Config, "WEBHOOK_RETRY_SCHEDULE">): number[] {
  return config.WEBHOOK_RETRY_SCHEDULE.split(",").map(Number);
}

/** A fixed development key, used only in development when SECRETS_KEY is unset. */
const DEVELOPMENT_SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");
const DEVELOPMENT_ADMIN_TOKEN = "dev-admin-token-change-me";

export function secretsKey(config: Pick<Config, "SECRETS_KEY">): Buffer {
  return Buffer.from(config.SECRETS_KEY ?? DEVELOPMENT_SECRETS_KEY, "base64");
}

export function adminToken(config: Pick<Config, "ADMIN_TOKEN">): string {
  return config.ADMIN_TOKEN ?? DEVELOPMENT_ADMIN_TOKEN;
}
