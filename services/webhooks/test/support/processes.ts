import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { START_BUDGET_MS } from "@newsroom/shared/testing/budget";
import { eventually } from "@newsroom/shared/testing/eventually";
import { closedPort } from "@newsroom/shared/testing/ports";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import type { Subprocess } from "bun";
import { type Fixture, webhooksFixture } from "./harness.ts";

const REPO_ROOT = resolve(import.meta.dir, "../../../..");

/** Variables a child must not inherit from the test's own environment. */
const NOT_INHERITED = [
  "DATABASE_URL",
  "NATS_URL",
  "REDIS_URL",
  "PORT",
  "METRICS_PORT",
  "NATS_STREAM",
  "NATS_SUBJECT_PREFIX",
];

export interface ChildProcess {
  port: number;
  process: Subprocess<"ignore", "pipe", "pipe">;
  /** What the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<number>;
}

function collect(child: Subprocess<"ignore", "pipe", "pipe">): () => string {
  let text = "";
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      text += decoder.decode(chunk.value, { stream: true });
    }
  };
  void read(child.stdout).catch(() => undefined);
  void read(child.stderr).catch(() => undefined);
  return () => text;
}

/**
 * The dispatcher as its own process (`bun services/webhooks/src/main.ts`), on a free port,
 * with only the environment given here (plus PATH and the like); resolves once `/health`
 * answers.
 */
export async function startDispatcher(env: Record<string, string>): Promise<ChildProcess> {
  const port = await closedPort();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !NOT_INHERITED.includes(name)),
  );
  const child = Bun.spawn([process.execPath, "services/webhooks/src/main.ts"], {
    cwd: REPO_ROOT,
    env: {
      ...inherited,
      LOG_IN_TESTS: "true",
      LOG_LEVEL: "warn",
      ...env,
      PORT: String(port),
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = collect(child);
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`the dispatcher exited (${child.exitCode}):\n${output()}`);
        }
        const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
        return response?.ok ?? false;
      },
      { message: "the dispatcher to answer /health", timeoutMs: START_BUDGET_MS },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    port,
    process: child,
    output,
    kill: async (signal) => {
      child.kill(signal);
      return child.exited;
    },
  };
}

/** Where nats-server is: on PATH, else /usr/sbin (Debian's package); null when absent. */
export function natsServerBinary(): string | null {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/bin"];
  for (const dir of dirs) {
    const candidate = join(dir, "nats-server");
    if (dir && existsSync(candidate)) return candidate;
  }
  if (process.env.CI === "true") {
    throw new Error("nats-server is not installed: under CI the NATS restart tests must run");
  }
  return null;
}

export interface NatsServer {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: no clean shutdown) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port; `wipe` starts from an empty store directory. */
  start(options?: { wipe?: boolean }): Promise<void>;
  /** Kills it and removes its store directory. */
  close(): Promise<void>;
}

/**
 * A nats-server with JetStream of this test's own (127.0.0.1, a free port, a temporary store
 * directory): never the machine's shared server.
 */
export async function startNatsServer(binary: string): Promise<NatsServer> {
  const port = await closedPort();
  let storeDir = await mkdtemp(join(tmpdir(), "webhooks-nats-"));
  let child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
  let output: () => string = () => "";

  const start = async (options: { wipe?: boolean } = {}) => {
    if (options.wipe) {
      await rm(storeDir, { recursive: true, force: true });
      storeDir = await mkdtemp(join(tmpdir(), "webhooks-nats-"));
    }
    const spawned = Bun.spawn(
      [binary, "-js", "-a", "127.0.0.1", "-p", String(port), "-sd", storeDir],
      { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    child = spawned;
    output = collect(spawned);
    await eventually(
      async () => {
        if (spawned.exitCode !== null) {
          throw new Error(`nats-server exited (${spawned.exitCode}):\n${output()}`);
        }
        return canConnect(port);
      },
      { message: "nats-server to listen", timeoutMs: 15_000 },
    );
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (!running) return;
    running.kill("SIGKILL");
    await running.exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    start,
    close: async () => {
      await kill();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/**
 * A test of the dispatcher as its own process: a seeded fixture on PostgreSQL, a receiver on
 * 127.0.0.1, and `dispatcher()` to start (and restart) the process with fast retries. Whatever it
 * started is killed after the tests.
 */
export function dispatcherWorld() {
  const world = {
    fx: undefined as unknown as Fixture,
    receiver: undefined as unknown as Receiver,
    dispatcher: async () => {
      const child = await startDispatcher({
        DATABASE_URL: world.fx.database.url!,
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1",
      });
      children.push(child);
      return child;
    },
  };
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    world.fx = await webhooksFixture();
    world.receiver = startReceiver();
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.process.exitCode === null) await child.kill("SIGKILL");
    }
    world.receiver.stop();
    await world.fx.close();
  });
  return world;
}
