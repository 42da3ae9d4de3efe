import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockFolder } from "../src/db/folder-lock.ts";
import { StartupError } from "../src/startup.ts";

const scratch = mkdtempSync(join(tmpdir(), "newsroom-lock-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A process id that is certainly not running: one that has exited. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

describe("PGlite folder lock", () => {
  test("holds the owner's pid and is gone after release", () => {
    const dir = join(scratch, "one");
    const lock = lockFolder(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
    lock.release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  test("a lock of a live process is refused, naming PGLITE_DIR and the pid", async () => {
    const dir = join(scratch, "live");
    const owner = Bun.spawn(["sleep", "30"]);
    try {
      writeFileSync(`${dir}.lock`, String(owner.pid));
      expect(() => lockFolder(dir)).toThrow(StartupError);
      expect(() => lockFolder(dir)).toThrow(
        `PGLITE_DIR ${dir} is in use by another process (pid ${owner.pid})`,
      );
    } finally {
      owner.kill();
      await owner.exited;
    }
  });

  test("a stale lock, of a process that is gone, is taken over", async () => {
    const dir = join(scratch, "stale");
    writeFileSync(`${dir}.lock`, String(await deadPid()));
    const lock = lockFolder(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
    lock.release();
  });
});
