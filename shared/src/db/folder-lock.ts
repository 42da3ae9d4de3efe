import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { StartupError } from "../startup.ts";

/**
 * One process per PGlite folder: two would each keep their own copy of the data in memory and
 * overwrite each other's files. The lock is a file beside the folder holding the owner's PID;
 * a lock whose process is gone (killed, crashed) is taken over.
 */
export interface FolderLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as { code?: string }).code === "EPERM";
  }
}

function ownerOf(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function lockFolder(dir: string): FolderLock {
  const path = `${resolve(dir)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      const release = () => {
        process.off("exit", release);
        if (ownerOf(path) === process.pid) unlinkSync(path);
      };
      // A process.exit() without closing the database still leaves no lock behind.
      process.on("exit", release);
      return { release };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const owner = ownerOf(path);
    if (owner !== null && owner !== process.pid && isAlive(owner)) {
      throw new StartupError(
        "PGLITE_DIR",
        `${dir} is in use by another process (pid ${owner}); stop it or choose another PGLITE_DIR`,
      );
    }
    // Stale: its process is gone. Take it over.
    unlinkSync(path);
  }
  throw new StartupError("PGLITE_DIR", `could not lock ${dir}`);
}
