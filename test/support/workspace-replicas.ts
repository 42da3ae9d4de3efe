import { freePort } from "@newsroom/shared/testing/ports";
import { waitForReady } from "@newsroom/shared/testing/servers";
import type { Subprocess } from "bun";

const root = new URL("../../", import.meta.url).pathname;

/**
 * The webhooks service and workspace replicas as separate processes on one database and bus: the
 * scheduler's tests kill and count them. `env` holds what every process shares (DATABASE_URL,
 * NATS_*, ADMIN_TOKEN...).
 */
export interface Replicas {
  webhooksUrl: string;
  /** Each workspace replica's internal API base (…/internal/v1). */
  workspaces: { base: string; process: Subprocess }[];
  stop(): Promise<void>;
}

export async function startReplicas(
  env: Record<string, string | undefined>,
  count: number,
  budgetMs: number,
): Promise<Replicas> {
  const output = process.env.REPLICAS_OUTPUT === "inherit" ? "inherit" : "ignore";
  const spawn = (entry: string, extra: Record<string, string>) =>
    Bun.spawn([process.execPath, entry], {
      cwd: root,
      env: { ...env, ...extra },
      stdout: output,
      stderr: output,
    });
  const webhooksPort = await freePort();
  const webhooksUrl = `http://127.0.0.1:${webhooksPort}`;
  const webhooks = spawn("services/webhooks/src/main.ts", { PORT: String(webhooksPort) });
  const workspaces: Replicas["workspaces"] = [];
  for (let i = 0; i < count; i += 1) {
    const port = await freePort();
    const child = spawn("services/workspace/src/main.ts", {
      WORKSPACE_PORT: String(port),
      WEBHOOKS_URL: webhooksUrl,
    });
    workspaces.push({ base: `http://127.0.0.1:${port}/internal/v1`, process: child });
  }
  const all = [webhooks, ...workspaces.map((w) => w.process)];
  const stop = async () => {
    for (const child of all) if (child.exitCode === null && !child.killed) child.kill("SIGTERM");
    await Promise.all(all.map((child) => child.exited));
  };
  try {
    await waitForReady(`${webhooksUrl}/health/ready`, budgetMs);
    for (const w of workspaces) {
      await waitForReady(`${w.base.replace("/internal/v1", "")}/health/ready`, budgetMs);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { webhooksUrl, workspaces, stop };
}

/** The median and the largest of some numbers. */
export function medianAndMax(values: number[]): { p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}
