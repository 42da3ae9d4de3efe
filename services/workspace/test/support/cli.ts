import { ADMIN_TOKEN, type Harness } from "./harness.ts";

const ROOT = `${import.meta.dir}/../../../..`;
const CLI = `${ROOT}/services/workspace/src/cli.ts`;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  json: () => any;
}

/** Runs `npm run admin -- <args>` as a subprocess, as a person would. */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<CliRun> {
  const child = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, LOG_LEVEL: "error", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** The harness's workspace on a real port, and the CLI pointed at it. */
export function cliAgainst(h: Harness) {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: h.fetch });
  const env = {
    WORKSPACE_URL: `http://127.0.0.1:${server.port}`,
    WORKSPACE_PORT: undefined,
    ADMIN_TOKEN,
  };
  return {
    server,
    admin: (...args: string[]) => runCli(args, { env }),
    stop: () => server.stop(true),
  };
}
