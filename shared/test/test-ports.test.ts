import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { freePort, freePortsAt } from "../src/testing/ports.ts";

const ephemeralLow = Number(
  (
    await Bun.file("/proc/sys/net/ipv4/ip_local_port_range")
      .text()
      .catch(() => "32768")
  ).split(/\s+/)[0],
);

function listenOn(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () =>
      resolve(() => new Promise((done) => server.close(() => done()))),
    );
  });
}

/** The ports tests listen on: none from the ephemeral range, none handed out twice. */
describe("test ports", () => {
  test("free ports come from below the ephemeral range, each handed out once", async () => {
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(1_024);
      expect(port).toBeLessThan(ephemeralLow);
    }
  });

  test("a base's derived ports are all free, below the range, and overlap no other call's", async () => {
    const offsets = [0, 101, 102, 103, 104, 201, 202, 203, 204, 205, 206];
    const bases = [await freePortsAt(offsets), await freePortsAt(offsets)];
    const taken = bases.flatMap((base) => offsets.map((offset) => base + offset));
    expect(new Set(taken).size).toBe(taken.length);
    expect(Math.max(...taken)).toBeLessThan(ephemeralLow);
    const closers = await Promise.all(taken.map(listenOn));
    await Promise.all(closers.map((close) => close()));
  });
});
