import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { chown } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@newsroom/shared/testing/ports";

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary folder, a free port on 127.0.0.1),
 * which a test may stop and start: the machine's shared server is never touched. Needs initdb and
 * pg_ctl in /usr/local/bin and, as root, the `postgres` user to run them as (`runuser`).
 */
export interface OwnPostgres {
  url: string;
  /** Stops at once, like a crash (`pg_ctl stop -m immediate`). */
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

const BIN = "/usr/local/bin";

export function ownPostgresAvailable(): boolean {
  return existsSync(`${BIN}/initdb`) && existsSync(`${BIN}/pg_ctl`);
}

async function run(command: string[]): Promise<void> {
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const child = Bun.spawn([...asPostgres, ...command], { stdout: "pipe", stderr: "pipe" });
  const code = await child.exited;
  if (code !== 0) {
    const stderr = await new Response(child.stderr).text();
    throw new Error(`${command.join(" ")} exited ${code}: ${stderr}`);
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "own-pg-"));
  if (process.getuid?.() === 0) {
    const { uid, gid } = await postgresUser();
    await chown(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  await run([`${BIN}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    run([`${BIN}/pg_ctl`, "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  const stop = () => run([`${BIN}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"]);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: async () => {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const id = (flag: string) =>
    new Response(Bun.spawn(["id", flag, "postgres"], { stdout: "pipe" }).stdout).text();
  return { uid: Number(await id("-u")), gid: Number(await id("-g")) };
}
