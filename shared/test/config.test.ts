import { describe, expect, test } from "bun:test";
import { Type as T } from "@sinclair/typebox";
import {
  appUrl,
  ConfigError,
  ConfigSchema,
  insecureWebhookTargets,
  loadConfig,
} from "../src/config.ts";
import {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE,
  ProcessConfig,
  PublicAddressConfig,
  SecretsConfig,
  WebhookDeliveryConfig,
  WorkspaceServerConfig,
} from "../src/config-variables.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Runs the migrate entry point (which loads the config first) with this environment. */
function start(env: Record<string, string>) {
  const result = Bun.spawnSync([process.execPath, "shared/src/db/migrate-cli.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", PGLITE_DIR: "memory", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: result.exitCode, stderr: result.stderr.toString() };
}

describe("config", () => {
  test("defaults are valid", () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.SERVICE_ENV).toBe("development");
    expect(config.WEBHOOK_RETRY_SCHEDULE).toBe("30,120,600,1800,3600,10800,21600");
  });

  test("links follow PORT unless their addresses are given", () => {
    const config = loadConfig({ PORT: "3600" });
    expect(config.PUBLIC_BASE_URL).toBe("http://localhost:3600");
    expect(config.NEWSROOM_HOST).toBe("http://localhost:3600/newsrooms");
    expect(appUrl(config)).toBe("http://localhost:3600/app");
    const given = loadConfig({
      PORT: "3600",
      PUBLIC_BASE_URL: "https://api.example.com",
      NEWSROOM_HOST: "https://news.example.com",
    });
    expect(given.PUBLIC_BASE_URL).toBe("https://api.example.com");
    expect(given.NEWSROOM_HOST).toBe("https://news.example.com");
  });

  for (const [variable, value] of [
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["SERVICE_ENV", "prod"],
    ["REDIS_URL", "http://localhost"],
    ["LOG_FORMAT", "xml"],
  ] as const) {
    test(`a bad ${variable} (${value}) stops start-up naming it, exit code 1`, () => {
      expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
      const { code, stderr } = start({ [variable]: value });
      expect(code).toBe(1);
      expect(stderr).toContain(variable);
    });
  }

  for (const [variable, value, secret] of [
    ["DATABASE_URL", "mysql://newsroom:s3cret-db-pass@db.internal/newsroom", "s3cret-db-pass"],
    ["REDIS_URL", "http://default:s3cret-redis-pass@redis:6379", "s3cret-redis-pass"],
    ["NATS_URL", "http://user:s3cret-nats-pass@nats:4222", "s3cret-nats-pass"],
    ["ADMIN_TOKEN", "short-s3cret", "short-s3cret"],
    ["SECRETS_KEY", "not-base64-s3cret", "not-base64-s3cret"],
    ["SES_ENDPOINT", "ftp://user:s3cret-ses-pass@ses.example.com", "s3cret-ses-pass"],
  ] as const) {
    test(`a bad ${variable} is named with the reason, never with its value`, () => {
      let message = "";
      try {
        loadConfig({ [variable]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(variable);
      expect(message).toContain("is invalid");
      expect(message).not.toContain(secret);
      const { code, stderr } = start({ [variable]: value });
      expect(code).toBe(1);
      expect(stderr).toContain(variable);
      expect(stderr).not.toContain(secret);
    });
  }

  test("a bad value of a plain variable is shown", () => {
    expect(() => loadConfig({ PORT: "abc" })).toThrow('(got "abc")');
  });

  const production = {
    SERVICE_ENV: "production",
    SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
    ADMIN_TOKEN: "a-production-admin-token",
    HUMAN_CHECK_MODE: "turnstile",
  };
  const sandbox = { ...production, SERVICE_ENV: "sandbox" };

  test("production and sandbox start with their required secrets", () => {
    expect(loadConfig(production).SERVICE_ENV).toBe("production");
    expect(loadConfig(sandbox).SERVICE_ENV).toBe("sandbox");
  });

  for (const [variable, value] of [
    ["WEBHOOK_ALLOW_INSECURE_TARGETS", "true"],
    ["WEBHOOK_INSECURE_TARGET_PORTS", "4000,4010"],
    ["WEBHOOK_RETRY_SCHEDULE", "1,1,1"],
    ["SCHEDULE_MIN_LEAD_SECONDS", "5"],
    ["HUMAN_CHECK_MODE", "test"],
    ["FORMS_CLIENT_LIMIT_PER_MINUTE", "1000"],
  ] as const) {
    test(`the test switch ${variable} is refused in production and sandbox`, () => {
      for (const env of [production, sandbox]) {
        expect(() => loadConfig({ ...env, [variable]: value })).toThrow(variable);
        const { code, stderr } = start({ ...env, [variable]: value });
        expect(code).toBe(1);
        expect(stderr).toContain(variable);
      }
      // The same switch is accepted in development.
      expect(() => loadConfig({ SERVICE_ENV: "development", [variable]: value })).not.toThrow();
    });
  }

  test("production or sandbox refuses an http APP_URL, naming it; https and development start", () => {
    for (const env of [production, sandbox]) {
      for (const url of ["http://app.example.com/app", "http://app.example.com"]) {
        expect(() => loadConfig({ ...env, APP_URL: url })).toThrow("APP_URL is http");
        const WorkspaceLike = T.Composite([ProcessConfig, WorkspaceServerConfig]);
        expect(() => loadConfig(WorkspaceLike, { ...env, APP_URL: url })).toThrow("APP_URL");
      }
      expect(loadConfig({ ...env, APP_URL: "https://app.example.com/app" }).APP_URL).toBe(
        "https://app.example.com/app",
      );
      const { code, stderr } = start({ ...env, APP_URL: "http://app.example.com/app" });
      expect(code).toBe(1);
      expect(stderr).toContain("APP_URL");
    }
    expect(() =>
      loadConfig({ SERVICE_ENV: "development", APP_URL: "http://localhost:3000/app" }),
    ).not.toThrow();
  });

  test("the local webhook receivers: on in development unless written false, off elsewhere", () => {
    expect(insecureWebhookTargets(loadConfig({}))).toBe(true);
    expect(insecureWebhookTargets(loadConfig({ WEBHOOK_ALLOW_INSECURE_TARGETS: "false" }))).toBe(
      false,
    );
    expect(insecureWebhookTargets(loadConfig(production))).toBe(false);
    expect(insecureWebhookTargets(loadConfig(sandbox))).toBe(false);
    const WithDelivery = T.Composite([ProcessConfig, WebhookDeliveryConfig]);
    expect(loadConfig(WithDelivery, {}).WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(true);
  });

  test("the local webhook receivers: any port with the switch alone, else the ports listed", () => {
    expect(insecureWebhookTargets(loadConfig({ WEBHOOK_ALLOW_INSECURE_TARGETS: "false" }))).toBe(
      false,
    );
    const any = loadConfig({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    expect(insecureWebhookTargets(any)).toBe(true);
    for (const env of [
      { WEBHOOK_INSECURE_TARGET_PORTS: "4000,4010" },
      { WEBHOOK_ALLOW_INSECURE_TARGETS: "true", WEBHOOK_INSECURE_TARGET_PORTS: "4000,4010" },
    ]) {
      expect(insecureWebhookTargets(loadConfig(env))).toEqual([4000, 4010]);
    }
    for (const ports of ["0", "70000", "4000,", "4000;4010", "any"]) {
      expect(() => loadConfig({ WEBHOOK_INSECURE_TARGET_PORTS: ports })).toThrow(
        "WEBHOOK_INSECURE_TARGET_PORTS",
      );
    }
  });

  test("production or sandbox without SECRETS_KEY or ADMIN_TOKEN is refused", () => {
    for (const env of [production, sandbox]) {
      expect(() => loadConfig({ ...env, SECRETS_KEY: "" })).toThrow("SECRETS_KEY");
      expect(() => loadConfig({ ...env, ADMIN_TOKEN: "" })).toThrow("ADMIN_TOKEN");
    }
  });

  test("production or sandbox with the development secrets is refused", () => {
    for (const env of [production, sandbox]) {
      const developmentKey = Buffer.alloc(32, 7).toString("base64");
      expect(() => loadConfig({ ...env, SECRETS_KEY: developmentKey })).toThrow("SECRETS_KEY");
      const developmentToken = "dev-admin-token-change-me";
      expect(() => loadConfig({ ...env, ADMIN_TOKEN: developmentToken })).toThrow("ADMIN_TOKEN");
    }
  });

  test("production or sandbox with a placeholder secret is refused, without showing it", () => {
    for (const env of [production, sandbox]) {
      for (const [variable, value] of [
        ["ADMIN_TOKEN", "change-me-to-a-long-random-token"],
        ["ADMIN_TOKEN", "placeholder-admin-token-0001"],
        ["TURNSTILE_SECRET", "changeme"],
        ["STRIPE_SECRET_KEY", "CHANGE-ME"],
        ["DATABASE_URL", "postgres://newsroom:change-me@postgres:5432/newsroom"],
      ] as const) {
        expect(() => loadConfig({ ...env, [variable]: value })).toThrow(
          `${variable} holds a placeholder value`,
        );
      }
    }
    // Development keeps its defaults and accepts anything.
    expect(() => loadConfig({ ADMIN_TOKEN: "change-me-to-a-long-random-token" })).not.toThrow();
  });

  test("production or sandbox without a human check starts only when acknowledged, with a warning", () => {
    for (const env of [production, sandbox]) {
      const off = { ...env, HUMAN_CHECK_MODE: "off" };
      expect(() => loadConfig(off)).toThrow("HUMAN_CHECK_MODE");
      const refused = start(off);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("HUMAN_CHECK_OFF_ACKNOWLEDGED");
      const acknowledged = { ...off, HUMAN_CHECK_OFF_ACKNOWLEDGED: "true" };
      expect(loadConfig(acknowledged).HUMAN_CHECK_MODE).toBe("off");
      const started = start({ ...acknowledged, LOG_IN_TESTS: "true" });
      expect(started.code).toBe(0);
      expect(started.stderr).toContain("HUMAN_CHECK_MODE is off");
    }
    expect(loadConfig({ SERVICE_ENV: "development" }).HUMAN_CHECK_MODE).toBe("off");
    // Each start that is not refused migrates a new in-memory PGlite: about 3 s apiece on a quiet
    // machine, four times that on a loaded one.
  }, 90_000);
});

describe("a service's own schema", () => {
  /** A service that reads only these parts, like each `services/<name>/src/config.ts`. */
  const Narrow = T.Composite([ProcessConfig, T.Pick(PublicAddressConfig, ["PUBLIC_BASE_URL"])]);
  const production = { SERVICE_ENV: "production", HUMAN_CHECK_MODE: "off" };

  test("reads, converts and defaults only its own variables", () => {
    const config = loadConfig(Narrow, { PORT: "3600", REDIS_URL: "not a url", HOUSE_ORG: "x" });
    expect(config).toEqual({
      SERVICE_ENV: "development",
      PORT: 3600,
      LOG_LEVEL: "info",
      HTTP_IDLE_TIMEOUT_SECONDS: 75,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_TRACES_SAMPLER: "parentbased_always_on",
      OTEL_TRACES_SAMPLER_ARG: 1,
      PUBLIC_BASE_URL: "http://localhost:3600",
    });
  });

  test("a bad value of its own stops it naming the variable, as with every variable", () => {
    expect(() => loadConfig(Narrow, { PORT: "abc" })).toThrow(
      "Invalid configuration: PORT is invalid",
    );
  });

  test("the deployment rules apply to the variables it declares", () => {
    // No SECRETS_KEY, ADMIN_TOKEN or human check to require: a gateway-like process starts.
    expect(loadConfig(Narrow, production).SERVICE_ENV).toBe("production");
    const WithSecrets = T.Composite([Narrow, SecretsConfig]);
    expect(() => loadConfig(WithSecrets, production)).toThrow("SECRETS_KEY is required");
    const WithDelivery = T.Composite([Narrow, WebhookDeliveryConfig]);
    expect(() =>
      loadConfig(WithDelivery, { ...production, WEBHOOK_RETRY_SCHEDULE: "1,1,1" }),
    ).toThrow("WEBHOOK_RETRY_SCHEDULE is a test switch");
    expect(() =>
      loadConfig(WithDelivery, { ...production, WEBHOOK_ALLOW_INSECURE_TARGETS: "true" }),
    ).toThrow("WEBHOOK_ALLOW_INSECURE_TARGETS is a test switch");
    expect(
      loadConfig(WithDelivery, {
        ...production,
        WEBHOOK_RETRY_SCHEDULE: DEFAULT_WEBHOOK_RETRY_SCHEDULE,
      }).WEBHOOK_RETRY_SCHEDULE,
    ).toBe("30,120,600,1800,3600,10800,21600");
  });

  test("every variable is declared once, in one part: the union holds no merged schema", () => {
    for (const [name, property] of Object.entries(ConfigSchema.properties)) {
      expect({ name, merged: "allOf" in property }).toEqual({ name, merged: false });
    }
  });
});
