import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
  type DatabaseTimeouts,
  DEFAULT_DATABASE_TIMEOUTS,
  DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS,
} from "./db/timeouts.ts";
import { log } from "./log.ts";

/**
 * Every environment variable of every service, with its default and unit beside it.
 * `loadConfig` checks them all at boot; a bad value names the variable and stops start-up.
 */
const Port = (fallback: number) => T.Integer({ minimum: 1, maximum: 65535, default: fallback });
const Bool = (fallback: boolean) => T.Boolean({ default: fallback });
const Url = T.String({ pattern: "^https?://[^\\s]+$" });
const Email = T.String({ pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$" });

export const ConfigSchema = T.Object({
  /** production accepts only live keys; sandbox and development only test keys. */
  SERVICE_ENV: T.Union([T.Literal("production"), T.Literal("sandbox"), T.Literal("development")], {
    default: "development",
  }),
  /** Gateway (or a service run alone) listens here. */
  PORT: Port(3000),
  /** Workspace internal API; bound to 127.0.0.1 in embedded mode. */
  WORKSPACE_PORT: Port(4001),
  /** Internal port for Prometheus metrics (/metrics); unset serves none. */
  METRICS_PORT: T.Optional(T.Integer({ minimum: 1, maximum: 65535 })),
  /** PostgreSQL (postgres.js). Without it the embedded PGlite is used. */
  DATABASE_URL: T.Optional(T.String({ pattern: "^postgres(ql)?://[^\\s]+$" })),
  /** PostgreSQL limits per session in ms (0: none); past them a request answers 503. */
  DATABASE_STATEMENT_TIMEOUT_MS: T.Integer({
    minimum: 0,
    default: DEFAULT_DATABASE_TIMEOUTS.statementMs,
  }),
  DATABASE_LOCK_TIMEOUT_MS: T.Integer({ minimum: 0, default: DEFAULT_DATABASE_TIMEOUTS.lockMs }),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: T.Integer({
    minimum: 0,
    default: DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs,
  }),
  /** The statement limit of the migration run, which may rewrite large tables (ms, 0: none). */
  DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS: T.Integer({
    minimum: 0,
    default: DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS,
  }),
  /** Where PGlite keeps its data; `memory` keeps nothing. */
  PGLITE_DIR: T.String({ default: "./.data/pg", minLength: 1 }),
  /** NATS with JetStream. Without it the in-process bus is used. */
  NATS_URL: T.Optional(T.String({ pattern: "^(nats|tls)://[^\\s]+$" })),
  /** JetStream stream and subject prefix: separate deployments (or test runs) on one server. */
  NATS_STREAM: T.String({ default: "STORY_EVENTS", pattern: "^[A-Za-z0-9_-]{1,64}$" }),
  NATS_SUBJECT_PREFIX: T.String({ default: "", pattern: "^([a-z0-9_-]+\\.)?$" }),
  /** Redis for shared rate limits. Without it limits are kept in memory. */
  REDIS_URL: T.Optional(T.String({ pattern: "^rediss?://[^\\s]+$" })),
  /** Prefix of the rate-limit counters in Redis: deployments sharing a Redis keep apart. */
  RATE_LIMIT_PREFIX: T.String({ default: "rl:", pattern: "^[A-Za-z0-9:_-]{1,40}$" }),
  /** Public reads (`GET /v1/public/*`) per client address a minute, at the gateway. */
  PUBLIC_RATE_LIMIT_PER_MINUTE: T.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1200 }),
  /** Comma-separated CIDRs whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: T.String({ default: "" }),
  /**
   * Behind the gateway: the comma-separated CIDRs of the gateway, the only peers whose
   * X-Client-Ip a service believes. Loopback by default (the local cluster).
   */
  GATEWAY_ADDRESSES: T.String({
    default: "127.0.0.1/32,::1/128",
    pattern: "^ *[0-9A-Fa-f:.]+(/[0-9]{1,3})? *(, *[0-9A-Fa-f:.]+(/[0-9]{1,3})? *)*$",
  }),
  /** Bearer token of the workspace internal API. */
  ADMIN_TOKEN: T.Optional(T.String({ minLength: 16 })),
  /** 32 bytes in base64: the AES-256-GCM key for webhook signing secrets at rest. */
  SECRETS_KEY: T.Optional(T.String({ pattern: "^[A-Za-z0-9+/]{43}=$" })),
  /** The organization slug whose stories make the house newsroom. */
  HOUSE_ORG: T.String({ default: "armage", pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" }),
  /** Base address of hosted newsrooms: `{NEWSROOM_HOST}/{site}`. Unset: http://localhost:$PORT/newsrooms. */
  NEWSROOM_HOST: T.String({ default: "http://localhost:3000/newsrooms", pattern: "^https?://" }),
  /**
   * The public address of the API ({base_url}): links in emails (newsletter confirmations).
   * Unset: http://localhost:$PORT.
   */
  PUBLIC_BASE_URL: T.String({ default: "http://localhost:3000", pattern: "^https?://[^\\s]+$" }),
  /** Distributed mode: where the gateway sends each prefix. Unset means mounted in-process. */
  PUBLIC_READ_URL: T.Optional(Url),
  FORMS_URL: T.Optional(Url),
  CLIENT_API_URL: T.Optional(Url),
  /** Distributed mode: where the gateway sends `/app` (the workspace process). */
  WORKSPACE_URL: T.Optional(Url),
  /**
   * The public base of the workspace web app, as people's browsers see it: form posts must come
   * from its origin, and its cookies are Secure when it is https. Unset: http://localhost:$PORT/app.
   */
  APP_URL: T.Optional(T.String({ pattern: "^https?://[^\\s/]+(/[^\\s]*)?$" })),
  /** Email (SES v2). SES_ENDPOINT points at the local emulator; unset means AWS. */
  SES_ENDPOINT: T.Optional(Url),
  SES_REGION: T.String({ default: "eu-west-1" }),
  /**
   * SES v2 contact lists (organization newsletters: CreateContactList, CreateContact). Unset: the
   * same place as email (AWS when SES_ENDPOINT is unset too); unset while SES_ENDPOINT is set
   * (the local emulator, which has no contact lists): no contact lists.
   */
  SES_CONTACTS_ENDPOINT: T.Optional(Url),
  SES_LOCAL_PORT: Port(8005),
  /** Milliseconds one SES v2 call may take, retries included, before it counts as unanswered. */
  SES_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  /** Whether email is configured; forms answer 503 forms_unavailable without it. */
  FORMS_FROM_EMAIL: T.Optional(Email),
  FORMS_TEAM_EMAIL: T.Optional(Email),
  /** off, test (accepts exactly `test-pass`, only in development) or turnstile. */
  HUMAN_CHECK_MODE: T.Union([T.Literal("off"), T.Literal("test"), T.Literal("turnstile")], {
    default: "off",
  }),
  /** Outside development, `HUMAN_CHECK_MODE=off` is refused unless this is true. */
  HUMAN_CHECK_OFF_ACKNOWLEDGED: Bool(false),
  TURNSTILE_SECRET: T.Optional(T.String()),
  /** Checkout summary; without a key the route answers 503. */
  STRIPE_SECRET_KEY: T.Optional(T.String()),
  STRIPE_API_BASE: T.Optional(Url),
  /** Test switch: lets webhook endpoints use http://127.0.0.1:<port>. */
  WEBHOOK_ALLOW_INSECURE_TARGETS: Bool(false),
  /** Test switch: seconds between attempts (7 gaps make 8 attempts). */
  WEBHOOK_RETRY_SCHEDULE: T.String({
    default: "30,120,600,1800,3600,10800,21600",
    pattern: "^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$",
  }),
  /** Purge CDN cache tags when a story is published or unpublished: off, cloudflare or fastly. */
  CDN_PURGE_PROVIDER: T.Union([T.Literal("off"), T.Literal("cloudflare"), T.Literal("fastly")], {
    default: "off",
  }),
  /** The provider's API base; unset: https://api.cloudflare.com/client/v4 or https://api.fastly.com. */
  CDN_PURGE_API_BASE: T.Optional(Url),
  /** Cloudflare API token (Cache Purge permission) or Fastly API token (purge_select). Secret. */
  CDN_PURGE_TOKEN: T.Optional(T.String({ minLength: 1 })),
  /** Cloudflare zone id, or Fastly service id. */
  CDN_PURGE_ZONE: T.Optional(T.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" })),
  /**
   * Webhook attempts in flight at once to one endpoint, across every replica. 4: ten hanging
   * endpoints hold 40 of a worker's 64 slots, and one endpoint answering in 50 ms takes 80/s.
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: T.Integer({ minimum: 1, maximum: 64, default: 4 }),
  /**
   * Log lines: json, or pretty (a short line for a terminal). Unset: pretty for `npm start`,
   * json for each process of the distributed mode.
   */
  LOG_FORMAT: T.Optional(T.Union([T.Literal("json"), T.Literal("pretty")])),
  /** Log level: debug, info, warn, error. */
  LOG_LEVEL: T.Union(
    [T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")],
    { default: "info" },
  ),
});

export type Config = Static<typeof ConfigSchema>;

const DEFAULT_WEBHOOK_RETRY_SCHEDULE = "30,120,600,1800,3600,10800,21600";

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

/** Reads, converts and checks the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  const linksGiven = { base: "PUBLIC_BASE_URL" in raw, newsroom: "NEWSROOM_HOST" in raw };
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  const first = Value.Errors(ConfigSchema, converted).First();
  if (first) {
    const variable = first.path.replace(/^\//, "") || "environment";
    const shown = shownValue(variable, raw[variable]);
    throw new ConfigError(variable, `is invalid: ${first.message}${shown}`);
  }
  const config = converted as Config;
  // Links point at the port actually served unless an address is given.
  if (!linksGiven.base) config.PUBLIC_BASE_URL = `http://localhost:${config.PORT}`;
  if (!linksGiven.newsroom) config.NEWSROOM_HOST = `http://localhost:${config.PORT}/newsrooms`;
  checkDeploymentRules(config, env);
  return config;
}

/**
 * Every deployment but development holds real data: it needs its own secrets and refuses the
 * test switches.
 */
function checkDeploymentRules(config: Config, env: Record<string, string | undefined>): void {
  const where = config.SERVICE_ENV;
  if (where === "development") return;
  if (config.WEBHOOK_ALLOW_INSECURE_TARGETS) {
    throw new ConfigError(
      "WEBHOOK_ALLOW_INSECURE_TARGETS",
      `is a test switch: refused in ${where}`,
    );
  }
  const schedule = env.WEBHOOK_RETRY_SCHEDULE;
  if (schedule && schedule !== DEFAULT_WEBHOOK_RETRY_SCHEDULE) {
    throw new ConfigError("WEBHOOK_RETRY_SCHEDULE", `is a test switch: refused in ${where}`);
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
  if (!config.SECRETS_KEY) throw new ConfigError("SECRETS_KEY", `is required in ${where}`);
  if (config.SECRETS_KEY === DEVELOPMENT_SECRETS_KEY) {
    throw new ConfigError("SECRETS_KEY", `is the development key: refused in ${where}`);
  }
  if (!config.ADMIN_TOKEN) throw new ConfigError("ADMIN_TOKEN", `is required in ${where}`);
  if (config.ADMIN_TOKEN === DEVELOPMENT_ADMIN_TOKEN) {
    throw new ConfigError("ADMIN_TOKEN", `is the development token: refused in ${where}`);
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

/** For entry points: load the config or print the reason and exit with code 1. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    const config = loadConfig(env);
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
function warnAboutAcknowledgedRisks(config: Config): void {
  if (config.SERVICE_ENV !== "development" && config.HUMAN_CHECK_MODE === "off") {
    log.warn(
      "HUMAN_CHECK_MODE is off (HUMAN_CHECK_OFF_ACKNOWLEDGED=true): forms and the mapping call " +
        "(/v1/public/start) accept automated submissions",
      { environment: config.SERVICE_ENV },
    );
  }
}

/** The PostgreSQL session limits, from the DATABASE_*_TIMEOUT_MS variables. */
export function databaseTimeouts(config: Config): DatabaseTimeouts {
  return {
    statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    lockMs: config.DATABASE_LOCK_TIMEOUT_MS,
    idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

/** The workspace web app's public base (APP_URL), without a trailing slash. */
export function appUrl(config: Pick<Config, "APP_URL" | "PORT">): string {
  return (config.APP_URL ?? `http://localhost:${config.PORT}/app`).replace(/\/+$/, "");
}

/** Seconds between webhook attempts, from WEBHOOK_RETRY_SCHEDULE. */
export function retrySchedule(config: Config): number[] {
  return config.WEBHOOK_RETRY_SCHEDULE.split(",").map(Number);
}

/** A fixed development key, used only in development when SECRETS_KEY is unset. */
const DEVELOPMENT_SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");
const DEVELOPMENT_ADMIN_TOKEN = "dev-admin-token-change-me";

export function secretsKey(config: Config): Buffer {
  return Buffer.from(config.SECRETS_KEY ?? DEVELOPMENT_SECRETS_KEY, "base64");
}

export function adminToken(config: Config): string {
  return config.ADMIN_TOKEN ?? DEVELOPMENT_ADMIN_TOKEN;
}
