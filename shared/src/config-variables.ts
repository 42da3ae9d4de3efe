import { type Static, Type as T } from "@sinclair/typebox";
import {
  DEFAULT_DATABASE_TIMEOUTS,
  DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS,
} from "./db/timeouts.ts";

/**
 * Every environment variable, with its default and unit beside it, in parts. Each service composes
 * the parts it reads into its own schema (`services/<name>/src/config.ts`, `gateway/src/config.ts`)
 * and loads only that; the embedded start loads them all (`ConfigSchema`). A variable belongs to
 * exactly one part, so a composed schema never declares one twice.
 */
const Port = (fallback: number) => T.Integer({ minimum: 1, maximum: 65535, default: fallback });
const Bool = (fallback: boolean) => T.Boolean({ default: fallback });
const Url = T.String({ pattern: "^https?://[^\\s]+$" });
const Email = T.String({ pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$" });

/** Seconds between webhook attempts (7 gaps make 8 attempts): the spec's retry schedule. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = "30,120,600,1800,3600,10800,21600";

/** Every process: where it runs, where it listens, how it logs. */
export const ProcessConfig = T.Object({
  /** production accepts only live keys; sandbox and development only test keys. */
  SERVICE_ENV: T.Union([T.Literal("production"), T.Literal("sandbox"), T.Literal("development")], {
    default: "development",
  }),
  /** Gateway (or a service run alone) listens here. */
  PORT: Port(3000),
  /** Internal port for Prometheus metrics (/metrics); unset serves none. */
  METRICS_PORT: T.Optional(T.Integer({ minimum: 1, maximum: 65535 })),
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
  /**
   * Seconds an idle keep-alive connection stays open: longer than the idle timeout of a proxy or
   * load balancer in front (60 s is common), which must never reuse a connection just closed.
   * At most 255 (Bun's limit).
   */
  HTTP_IDLE_TIMEOUT_SECONDS: T.Integer({ default: 75, minimum: 1, maximum: 255 }),
  /**
   * OpenTelemetry collector (OTLP over HTTP) that receives the traces: spans go to
   * `{endpoint}/v1/traces`. Unset (and no traces endpoint): no tracing at all.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: T.Optional(Url),
  /** The full address traces go to, when not `{OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: T.Optional(Url),
  /** How spans are encoded: http/protobuf or http/json. */
  OTEL_EXPORTER_OTLP_PROTOCOL: T.Union([T.Literal("http/protobuf"), T.Literal("http/json")], {
    default: "http/protobuf",
  }),
  /** The service name on every span. Unset: the process's own (gateway, client-api, ...). */
  OTEL_SERVICE_NAME: T.Optional(T.String({ minLength: 1 })),
  /**
   * Which traces are kept: always_on, always_off, traceidratio, or parentbased_* (follow the
   * caller's choice, else the given rule).
   */
  OTEL_TRACES_SAMPLER: T.Union(
    [
      T.Literal("always_on"),
      T.Literal("always_off"),
      T.Literal("traceidratio"),
      T.Literal("parentbased_always_on"),
      T.Literal("parentbased_always_off"),
      T.Literal("parentbased_traceidratio"),
    ],
    { default: "parentbased_always_on" },
  ),
  /** The ratio of the *traceidratio samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: T.Number({ minimum: 0, maximum: 1, default: 1 }),
  /** Extra resource attributes on every span: `key=value,key=value` (deployment.environment=...). */
  OTEL_RESOURCE_ATTRIBUTES: T.Optional(T.String()),
});
export type ProcessConfig = Static<typeof ProcessConfig>;

/** PostgreSQL, or the embedded PGlite without it. */
export const DatabaseConfig = T.Object({
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
  /** How long opening a PostgreSQL connection may take (ms): a request waits no longer for its 503. */
  DATABASE_CONNECT_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 60_000,
    default: DEFAULT_DATABASE_TIMEOUTS.connectMs,
  }),
  /** The statement limit of the migration run, which may rewrite large tables (ms, 0: none). */
  DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS: T.Integer({
    minimum: 0,
    default: DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS,
  }),
  /** Where PGlite keeps its data; `memory` keeps nothing. */
  PGLITE_DIR: T.String({ default: "./.data/pg", minLength: 1 }),
});

/** The event bus: NATS JetStream, or the in-process bus without it. */
export const BusConfig = T.Object({
  /** NATS with JetStream. Without it the in-process bus is used. */
  NATS_URL: T.Optional(T.String({ pattern: "^(nats|tls)://[^\\s]+$" })),
  /** JetStream stream and subject prefix: separate deployments (or test runs) on one server. */
  NATS_STREAM: T.String({ default: "STORY_EVENTS", pattern: "^[A-Za-z0-9_-]{1,64}$" }),
  NATS_SUBJECT_PREFIX: T.String({ default: "", pattern: "^([a-z0-9_-]+\\.)?$" }),
});

/** Rate-limit counters: Redis, or memory without it. */
export const RateLimitConfig = T.Object({
  /**
   * Redis for shared rate limits and webhook endpoints' pacing. Without it both are kept in
   * memory.
   */
  REDIS_URL: T.Optional(T.String({ pattern: "^rediss?://[^\\s]+$" })),
  /** Prefix of the rate-limit counters in Redis: deployments sharing a Redis keep apart. */
  RATE_LIMIT_PREFIX: T.String({ default: "rl:", pattern: "^[A-Za-z0-9:_-]{1,40}$" }),
});

/** What `openRuntime` opens: database, bus and rate-limit store. */
export const RuntimeConfig = T.Composite([DatabaseConfig, BusConfig, RateLimitConfig]);
export type RuntimeConfig = Static<typeof RuntimeConfig>;

/** Whose forwarded client address is believed. */
export const EdgeConfig = T.Object({
  /** Comma-separated CIDRs whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: T.String({ default: "" }),
  /**
   * Behind the gateway: the comma-separated CIDRs of the gateway, the only peers whose
   * X-Client-Ip a service believes. Loopback by default (the local cluster). The gateway's own
   * addresses only: outside development a whole private range (10.0.0.0/8, ...) is refused.
   */
  GATEWAY_ADDRESSES: T.String({
    default: "127.0.0.1/32,::1/128",
    pattern: "^ *[0-9A-Fa-f:.]+(/[0-9]{1,3})? *(, *[0-9A-Fa-f:.]+(/[0-9]{1,3})? *)*$",
  }),
});
export type EdgeConfig = Static<typeof EdgeConfig>;

/** The public addresses links are made of, and the house newsroom. */
export const PublicAddressConfig = T.Object({
  /** The organization slug whose stories make the house newsroom. */
  HOUSE_ORG: T.String({ default: "armage", pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" }),
  /** Base address of hosted newsrooms: `{NEWSROOM_HOST}/{site}`. Unset: http://localhost:$PORT/newsrooms. */
  NEWSROOM_HOST: T.String({ default: "http://localhost:3000/newsrooms", pattern: "^https?://" }),
  /**
   * The public address of the API ({base_url}): links in emails (newsletter confirmations).
   * Unset: http://localhost:$PORT.
   */
  PUBLIC_BASE_URL: T.String({ default: "http://localhost:3000", pattern: "^https?://[^\\s]+$" }),
});

/** The key that seals secrets at rest and signs tokens (cursors, unsubscribe links, codes). */
export const SecretsConfig = T.Object({
  /** 32 bytes in base64: the AES-256-GCM key for webhook signing secrets at rest. */
  SECRETS_KEY: T.Optional(T.String({ pattern: "^[A-Za-z0-9+/]{43}=$" })),
});

/** Email and contact lists (SES v2). */
export const MailConfig = T.Object({
  /** Email (SES v2). SES_ENDPOINT points at the local emulator; unset means AWS. */
  SES_ENDPOINT: T.Optional(Url),
  SES_REGION: T.String({ default: "eu-west-1" }),
  /**
   * SES v2 contact lists (organization newsletters: CreateContactList, CreateContact). Unset: the
   * same place as email (AWS when SES_ENDPOINT is unset too); unset while SES_ENDPOINT is set
   * (the local emulator, which has no contact lists): no contact lists.
   */
  SES_CONTACTS_ENDPOINT: T.Optional(Url),
  /** Milliseconds one SES v2 call may take, retries included, before it counts as unanswered. */
  SES_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  /** Whether email is configured; forms answer 503 forms_unavailable without it. */
  FORMS_FROM_EMAIL: T.Optional(Email),
  FORMS_TEAM_EMAIL: T.Optional(Email),
});

/** The gateway: where it sends each prefix, and the public read limit. */
export const GatewayRoutingConfig = T.Object({
  /** Public reads (`GET /v1/public/*`) per client address a minute, at the gateway. */
  PUBLIC_RATE_LIMIT_PER_MINUTE: T.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1200 }),
  /** Distributed mode: where the gateway sends each prefix. Unset means mounted in-process. */
  PUBLIC_READ_URL: T.Optional(Url),
  FORMS_URL: T.Optional(Url),
  CLIENT_API_URL: T.Optional(Url),
  /** Distributed mode: where the gateway sends `/app` (the workspace process). */
  WORKSPACE_URL: T.Optional(Url),
});

/**
 * Distributed mode: where the workspace sends its commands to the services that own the data
 * (their internal APIs, behind ADMIN_TOKEN). The workspace also reads FORMS_URL and PUBLIC_READ_URL
 * (story previews). Unset in the
 * embedded start: the services are called in-process.
 */
export const ServiceCallsConfig = T.Object({
  /** The webhooks service: endpoints, secrets, test events, resends and recoveries. */
  WEBHOOKS_URL: T.Optional(Url),
});

/** The status page's prober, in the workspace: how often it probes, and where the gateway is. */
export const StatusPageConfig = T.Object({
  /**
   * Seconds between the status page's probe rounds (default 30). Test switch: a few seconds in
   * tests that stop a process and wait for its component to show the outage.
   */
  STATUS_PROBE_INTERVAL_SECONDS: T.Integer({ minimum: 1, maximum: 3600, default: 30 }),
  /**
   * Where the status page's prober reaches the gateway for its real public read (an internal
   * address). Unset: `http://127.0.0.1:{PORT}`, the gateway of the embedded start and the cluster.
   */
  GATEWAY_URL: T.Optional(Url),
});

/** The forms' human check and per-client limit. */
export const HumanCheckConfig = T.Object({
  /** off, test (accepts exactly `test-pass`, only in development) or turnstile. */
  HUMAN_CHECK_MODE: T.Union([T.Literal("off"), T.Literal("test"), T.Literal("turnstile")], {
    default: "off",
  }),
  /** Outside development, `HUMAN_CHECK_MODE=off` is refused unless this is true. */
  HUMAN_CHECK_OFF_ACKNOWLEDGED: Bool(false),
  TURNSTILE_SECRET: T.Optional(T.String()),
  /**
   * Development switch: form submissions and organization subscribes a minute per client address
   * (unset: 5), to try the forms by hand past the limit; refused outside development.
   */
  FORMS_CLIENT_LIMIT_PER_MINUTE: T.Optional(T.Integer({ minimum: 1, maximum: 100_000 })),
});

/** The public checkout summary (Stripe). */
export const CheckoutConfig = T.Object({
  /** Checkout summary; without a key the route answers 503. */
  STRIPE_SECRET_KEY: T.Optional(T.String()),
  STRIPE_API_BASE: T.Optional(Url),
});

/** Purging the CDN's cache tags when public content changes. */
export const CdnPurgeConfig = T.Object({
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
});

/** Webhook endpoints' targets and the delivery of attempts. */
export const WebhookDeliveryConfig = T.Object({
  /**
   * Lets webhook endpoints use http://127.0.0.1:<port> (or localhost), any port; with
   * WEBHOOK_INSECURE_TARGET_PORTS, only those ports. On by default in development (write `false`
   * to refuse them there); a test switch, refused in sandbox and production.
   */
  WEBHOOK_ALLOW_INSECURE_TARGETS: Bool(false),
  /**
   * Test switch, the narrower form: the local receivers' ports (comma-separated, such as
   * `4000,4010`). Turns the switch on for these ports alone.
   */
  WEBHOOK_INSECURE_TARGET_PORTS: T.Optional(T.String({ pattern: "^\\d{1,5}(,\\d{1,5})*$" })),
  /** Test switch: seconds between attempts (7 gaps make 8 attempts). */
  WEBHOOK_RETRY_SCHEDULE: T.String({
    default: DEFAULT_WEBHOOK_RETRY_SCHEDULE,
    pattern: "^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$",
  }),
  /**
   * Webhook attempts in flight at once to one endpoint, across every replica. 4: ten hanging
   * endpoints hold 40 of a worker's 64 slots, and one endpoint answering in 50 ms takes 80/s.
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: T.Integer({ minimum: 1, maximum: 64, default: 4 }),
});

/** The workspace: its internal API and the people's web app. */
export const WorkspaceServerConfig = T.Object({
  /** Workspace internal API; bound to 127.0.0.1 in embedded mode. */
  WORKSPACE_PORT: Port(4001),
  /**
   * The workspace web app (/app) on a port of its own, the one the gateway's WORKSPACE_URL names:
   * only this port believes the gateway's X-Client-Ip, and WORKSPACE_PORT then serves the
   * internal API alone. Unset: both on WORKSPACE_PORT.
   */
  WORKSPACE_WEB_PORT: T.Optional(T.Integer({ minimum: 1, maximum: 65_535 })),
  /** Bearer token of the internal APIs: the workspace's (the operator's) and those it calls. */
  ADMIN_TOKEN: T.Optional(T.String({ minLength: 16 })),
  /**
   * The public base of the workspace web app, as people's browsers see it: form posts must come
   * from its origin, and its cookies are Secure when it is https. Unset: http://localhost:$PORT/app.
   */
  APP_URL: T.Optional(T.String({ pattern: "^https?://[^\\s/]+(/[^\\s]*)?$" })),
});

/** The least lead of a scheduled publication: one minute. */
export const DEFAULT_SCHEDULE_MIN_LEAD_SECONDS = 60;

/** The workspace's scheduler, which publishes scheduled stories at their time. */
export const SchedulerConfig = T.Object({
  /**
   * Test switch: how far ahead, in seconds, `schedule` must set `publish_at` (default 60, the
   * rule; refused at any other value in sandbox and production).
   */
  SCHEDULE_MIN_LEAD_SECONDS: T.Integer({
    minimum: 1,
    maximum: 3600,
    default: DEFAULT_SCHEDULE_MIN_LEAD_SECONDS,
  }),
  /**
   * Seconds after its `publish_at` within which a scheduled story is still published (after a
   * database outage, say); past them the scheduler gives up: the story goes to `failed` and the
   * person who scheduled it is emailed. Default 900 (15 minutes).
   */
  SCHEDULE_LATE_LIMIT_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
});

/** Single sign-on: where the TXT records that prove an organization's email domain are looked up. */
export const DomainVerificationConfig = T.Object({
  /**
   * Comma-separated DNS servers (`address:port`, `[ipv6]:port`, or an address for port 53) for
   * the domain verification lookups. Unset: the system's resolvers.
   */
  DNS_RESOLVERS: T.Optional(
    T.String({
      pattern: "^ *[0-9A-Fa-f:.\\[\\]]+ *(, *[0-9A-Fa-f:.\\[\\]]+ *)*$",
    }),
  ),
});

/** The local start only (`npm start`, the local cluster): no service reads these. */
export const LocalRunConfig = T.Object({
  SES_LOCAL_PORT: Port(8005),
  /**
   * Where `npm start` records its ports (and, in development, its admin token) for
   * `npm run admin` in another shell. Tests that start the service point it elsewhere.
   */
  LOCAL_PORTS_FILE: T.String({ default: ".data/ports.json", minLength: 1 }),
});

/** Every variable of every service: what the embedded start (all services in one process) loads. */
export const ConfigSchema = T.Composite([
  ProcessConfig,
  DatabaseConfig,
  BusConfig,
  RateLimitConfig,
  EdgeConfig,
  PublicAddressConfig,
  SecretsConfig,
  MailConfig,
  GatewayRoutingConfig,
  HumanCheckConfig,
  CheckoutConfig,
  CdnPurgeConfig,
  WebhookDeliveryConfig,
  WorkspaceServerConfig,
  SchedulerConfig,
  ServiceCallsConfig,
  DomainVerificationConfig,
  StatusPageConfig,
  LocalRunConfig,
]);

export type Config = Static<typeof ConfigSchema>;
