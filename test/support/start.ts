import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@newsroom/shared/testing/ports";

/**
 * `npm start` (scripts/start.ts) as tests run it: its own free ports and its own ports file
 * (LOCAL_PORTS_FILE in a temporary folder), so that a developer's running start, and the
 * `.data/ports.json` its `npm run admin` reads, are never touched.
 */
export const ROOT = new URL("../../", import.meta.url).pathname;

/** The record of the developer's own `npm start`. */
export const DEVELOPER_PORTS_FILE = join(ROOT, ".data/ports.json");

/** A file's presence, size and modification time: equal before and after when untouched. */
export function fileState(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.size} bytes, modified ${stat.mtimeMs}, ${readFileSync(path, "utf8")}`;
  } catch {
    return "absent";
  }
}

export interface StartEnv extends Record<string, string> {
  PORT: string;
  WORKSPACE_PORT: string;
  SES_LOCAL_PORT: string;
  LOCAL_PORTS_FILE: string;
}

/** Free PORT, WORKSPACE_PORT and SES_LOCAL_PORT, and a LOCAL_PORTS_FILE of its own. */
export async function startEnv(): Promise<StartEnv> {
  return {
    PORT: String(await freePort()),
    WORKSPACE_PORT: String(await freePort()),
    SES_LOCAL_PORT: String(await freePort()),
    LOCAL_PORTS_FILE: join(mkdtempSync(join(tmpdir(), "newsroom-ports-")), "ports.json"),
  };
}

/** Spawns `npm start` with only PATH from this environment and `env` (startEnv's and more). */
export function spawnStart(env: Record<string, string>) {
  if (!env.LOCAL_PORTS_FILE) throw new Error("a start in a test needs its own LOCAL_PORTS_FILE");
  return Bun.spawn([process.execPath, "scripts/start.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}
