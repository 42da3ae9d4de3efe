import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLocalPorts, removeLocalPorts, writeLocalPorts } from "../src/local-ports.ts";

/** `.data/ports.json`: what `npm start` records for `npm run admin` in another shell. */
describe("local ports", () => {
  const fileIn = () => join(mkdtempSync(join(tmpdir(), "ports-")), ".data", "ports.json");
  const ports = (pid: number) => ({
    pid,
    url: "http://localhost:3999",
    workspace_url: "http://127.0.0.1:4999",
    admin_token: "development-token-0001",
  });

  test("written for the owner only, read back while the process runs", () => {
    const file = fileIn();
    writeLocalPorts(ports(process.pid), file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readLocalPorts(file)).toEqual(ports(process.pid));
  });

  test("a start whose process is gone is ignored", async () => {
    const file = fileIn();
    const gone = Bun.spawn([process.execPath, "-e", ""]);
    await gone.exited;
    writeLocalPorts(ports(gone.pid), file);
    expect(readLocalPorts(file)).toBeNull();
  });

  test("removed on stop only by the process that wrote it", () => {
    const file = fileIn();
    writeLocalPorts(ports(1), file);
    removeLocalPorts(file);
    expect(existsSync(file)).toBe(true);
    writeLocalPorts(ports(process.pid), file);
    removeLocalPorts(file);
    expect(existsSync(file)).toBe(false);
  });

  test("no file or an unreadable one is null", () => {
    expect(readLocalPorts(fileIn())).toBeNull();
  });
});
