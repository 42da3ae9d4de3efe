/**
 * `npm start` writes the ports it listens on to `.data/ports.json`, so that `npm run admin` in
 * another shell finds the workspace without the variables the start was given. The admin token
 * is written only in development, where it is the built-in or a developer's own. The file is
 * LOCAL_PORTS_FILE (tests that start the service set it to a temporary folder).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const LOCAL_PORTS_FILE = ".data/ports.json";

export interface LocalPorts {
  pid: number;
  url: string;
  workspace_url: string;
  ses_url?: string;
  admin_token?: string;
}

export function writeLocalPorts(ports: LocalPorts, file = LOCAL_PORTS_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(ports, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the file when it is this process's own (a later start may have replaced it). */
export function removeLocalPorts(file = LOCAL_PORTS_FILE): void {
  if (readLocalPorts(file)?.pid === process.pid) rmSync(file, { force: true });
}

/** The ports of a running start, or null (no file, unreadable, or its process is gone). */
export function readLocalPorts(file = LOCAL_PORTS_FILE): LocalPorts | null {
  if (!existsSync(file)) return null;
  let ports: LocalPorts;
  try {
    ports = JSON.parse(readFileSync(file, "utf8")) as LocalPorts;
  } catch {
    return null;
  }
  if (typeof ports.pid !== "number" || typeof ports.workspace_url !== "string") return null;
  return isRunning(ports.pid) ? ports : null;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
