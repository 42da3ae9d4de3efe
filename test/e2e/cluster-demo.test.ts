import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { requireService, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort, freePortsAt } from "@newsroom/shared/testing/ports";
import { PORT_OFFSETS } from "../../scripts/cluster.ts";

/**
 * `npm run start:cluster -- --demo`: the six processes up within seconds, with the local SES
 * emulator (forms send email) and the demo data with its test key, like `npm start`.
 */
const root = new URL("../../", import.meta.url).pathname;
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

const suffix = Math.random().toString(36).slice(2, 8);
const stream = `T_DEMO_${suffix.toUpperCase()}`;

describe.skipIf(!ready)("npm run start:cluster -- --demo", () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let banner = "";
  let upAfterMs = 0;
  const port = { gateway: 0, ses: 0 };

  beforeAll(async () => {
    database = await testDatabase({ backend: "postgres" });
    port.gateway = await freePortsAt(PORT_OFFSETS);
    port.ses = await freePort();
    const started = Date.now();
    child = Bun.spawn([process.execPath, "scripts/cluster.ts", "--demo"], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port.gateway),
        WORKSPACE_PORT: String(await freePort()),
        SES_LOCAL_PORT: String(port.ses),
        DATABASE_URL: database.url,
        NATS_URL: natsUrl,
        NATS_STREAM: stream,
        NATS_SUBJECT_PREFIX: `demo${suffix}.`,
        REDIS_URL: redisUrl,
        RATE_LIMIT_PREFIX: `demo${suffix}:`,
        LOG_LEVEL: "error",
      },
      stdout: "pipe",
      stderr: "inherit",
    });
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 90_000;
    while (!/armk_test_[\w-]{43}\n/.test(banner) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      banner += decoder.decode(value);
      if (!upAfterMs && banner.includes("cluster up")) upAfterMs = Date.now() - started;
    }
    reader.releaseLock();
  }, 120_000);

  afterAll(async () => {
    child?.kill("SIGTERM");
    await child?.exited;
    await database?.close();
    const nc = await connect({ servers: natsUrl! });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
    await nc.close();
  });

  test("up within seconds: readiness failures are not held for 15 s", () => {
    expect(upAfterMs).toBeGreaterThan(0);
    // A failed probe was held 15 s before: about 17 s then, about 2 s now.
    expect(upAfterMs).toBeLessThan(14_000);
  });

  test("the banner names the web app, the index page and the demo people to sign in as", () => {
    expect(banner).toContain(`Home           http://localhost:${port.gateway}/`);
    expect(banner).toContain(`Web app        http://localhost:${port.gateway}/app/`);
    expect(banner).toMatch(/owner@northwind\.example +owner of northwind\n/);
  });

  test("the banner names the demo data, its key and the inbox page", () => {
    expect(banner).toContain(`inbox page http://127.0.0.1:${port.ses}/`);
    expect(banner).toContain(`Metrics        ports ${port.gateway + 201}-${port.gateway + 206}\n`);
    expect(banner).toContain(`Links          http://localhost:${port.gateway}`);
    expect(banner).toMatch(/northwind +Northwind Cooperative/);
    expect(banner).toMatch(/Test API key of northwind \(shown once\):\n +armk_test_[\w-]{43}\n/);
  });

  test("the key reads the demo organization's stories through the gateway", async () => {
    const key = /armk_test_[\w-]{43}/.exec(banner)![0];
    const response = await fetch(`http://127.0.0.1:${port.gateway}/v1/stories`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).data.length).toBeGreaterThan(0);
  });

  test("forms send email: a digest subscription reaches the emulator's inbox", async () => {
    const email = `reader-${suffix}@example.com`;
    const response = await fetch(
      `http://127.0.0.1:${port.gateway}/v1/public/newsletter/subscribe`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          email,
          consent: true,
          submission_id: crypto.randomUUID(),
          started_at: Date.now() - 10_000,
          fax: "",
        }),
      },
    );
    expect(response.status).toBe(202);
    await eventually(
      async () => {
        const store = await (await fetch(`http://127.0.0.1:${port.ses}/store`)).json();
        return store.emails.some((mail: { destination: { to: string[] } }) =>
          mail.destination.to.includes(email),
        );
      },
      {
        message: `the confirmation email to ${email} in the emulator`,
        timeoutMs: 15_000,
        everyMs: 200,
      },
    );
  }, 30_000);
});
