import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

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

  for (const [variable, value] of [
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["SERVICE_ENV", "prod"],
    ["REDIS_URL", "http://localhost"],
  ] as const) {
    test(`a bad ${variable} (${value}) stops start-up naming it, exit code 1`, () => {
      expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
      const { code, stderr } = start({ [variable]: value });
      expect(code).toBe(1);
      expect(stderr).toContain(variable);
    });
  }

  const production = {
    SERVICE_ENV: "production",
    SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
    ADMIN_TOKEN: "a-production-admin-token",
  };

  test("production starts with its required secrets", () => {
    expect(loadConfig(production).SERVICE_ENV).toBe("production");
  });

  for (const [variable, value] of [
    ["WEBHOOK_ALLOW_INSECURE_TARGETS", "true"],
    ["WEBHOOK_RETRY_SCHEDULE", "1,1,1"],
    ["HUMAN_CHECK_MODE", "test"],
  ] as const) {
    test(`the test switch ${variable} is refused in production`, () => {
      expect(() => loadConfig({ ...production, [variable]: value })).toThrow(variable);
      const { code, stderr } = start({ ...production, [variable]: value });
      expect(code).toBe(1);
      expect(stderr).toContain(variable);
      // The same switch is accepted outside production.
      expect(() => loadConfig({ SERVICE_ENV: "sandbox", [variable]: value })).not.toThrow();
    });
  }

  test("production without SECRETS_KEY or ADMIN_TOKEN is refused", () => {
    expect(() => loadConfig({ ...production, SECRETS_KEY: "" })).toThrow("SECRETS_KEY");
    expect(() => loadConfig({ ...production, ADMIN_TOKEN: "" })).toThrow("ADMIN_TOKEN");
  });
});
