import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { portAccepts } from "../startup.ts";
import { START_BUDGET_MS } from "./budget.ts";
import { eventually } from "./eventually.ts";

/**
 * Infrastructure servers a fault test owns: its own NATS (JetStream) and Redis processes on
 * free ports, so killing and restarting them touches nothing else on the machine.
 */
function binary(name: string, candidates: string[]): string | null {
  for (const path of [...(Bun.which(name) ? [Bun.which(name)!] : []), ...candidates]) {
    if (existsSync(path)) return path;
  }
  return null;
}

export const NATS_SERVER = binary("nats-server", ["/usr/sbin/nats-server", "/usr/bin/nats-server"]);
export const REDIS_SERVER = binary("redis-server", ["/usr/bin/redis-server"]);

/** Under CI a missing server binary fails the run instead of skipping. */
export function requireBinary(path: string | null, name: string): string | null {
  if (!path && process.env.CI === "true") throw new Error(`${name} is not installed under CI`);
  return path;
}

export class OwnedServer {
  private process: Subprocess | null = null;

  constructor(
    private readonly command: string[],
    private readonly cleanup: () => void = () => {},
  ) {}

  start(): void {
    this.process = Bun.spawn(this.command, { stdout: "ignore", stderr: "ignore" });
  }

  /** kill -9: no goodbye, like a crashed server. */
  async kill(): Promise<void> {
    this.process?.kill("SIGKILL");
    await this.process?.exited;
    this.process = null;
  }

  async stop(): Promise<void> {
    await this.kill();
    this.cleanup();
  }
}

export function natsServer(port: number): OwnedServer {
  const dir = mkdtempSync(join(tmpdir(), "nats-"));
  return new OwnedServer(
    [NATS_SERVER!, "-js", "-a", "127.0.0.1", "-p", String(port), "-sd", dir],
    () => rmSync(dir, { recursive: true, force: true }),
  );
}

export function redisServer(port: number): OwnedServer {
  return new OwnedServer([
    REDIS_SERVER!,
    "--bind",
    "127.0.0.1",
    "--port",
    String(port),
    "--save",
    "",
    "--appendonly",
    "no",
  ]);
}

/** Resolves once a TCP connection to the port succeeds; throws after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  await eventually(() => portAccepts(port), {
    message: `port ${port} on 127.0.0.1 to accept a connection`,
    timeoutMs,
    everyMs: 100,
  });
}

/** Resolves once GET `url` answers with a 2xx status; throws after `timeoutMs`. */
export async function waitForReady(url: string, timeoutMs = START_BUDGET_MS): Promise<void> {
  await eventually(
    async () => {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      return response.ok;
    },
    { message: `${url} to answer 2xx`, timeoutMs, everyMs: 200 },
  );
}
