import { createServer } from "node:net";

/** Whether nothing is bound to this port on any address, listening or as a connection's local end. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/** The lowest port the kernel hands out for port 0 and for the local end of outgoing connections. */
async function ephemeralLow(): Promise<number> {
  const range = await Bun.file("/proc/sys/net/ipv4/ip_local_port_range")
    .text()
    .catch(() => "");
  const low = Number(range.trim().split(/\s+/)[0]);
  // Without the file (macOS: 49152), the lowest default of the common systems.
  return Number.isInteger(low) && low > 0 ? low : 32_768;
}

/** Ports this process handed out: two calls never overlap before their servers bind. */
const handedOut = new Set<number>();

/**
 * A base port such that base + each offset was free a moment ago and handed out by no earlier
 * call of this process, for a process that derives ports from one (the cluster takes PORT +
 * 101..104 and + 201..206). The base is chosen at random below the ephemeral range: a port the
 * kernel handed out for port 0 could be taken meanwhile by the local end of any outgoing
 * connection (to PostgreSQL, NATS, Redis).
 */
export async function freePortsAt(offsets: readonly number[]): Promise<number> {
  const span = Math.max(0, ...offsets);
  const high = (await ephemeralLow()) - span - 1;
  const low = high > 11_000 ? 10_000 : 1_024;
  if (high <= low) throw new Error(`no room below the ephemeral range for offsets up to ${span}`);
  // Long since bound or closed: forgotten before the set would crowd the range.
  if (handedOut.size > 5_000) handedOut.clear();
  for (let tries = 0; tries < 100; tries++) {
    const base = low + Math.floor(Math.random() * (high - low));
    const ports = offsets.map((offset) => base + offset);
    if (ports.some((port) => handedOut.has(port))) continue;
    let free = true;
    for (const port of ports) {
      free = await isFree(port);
      if (!free) break;
    }
    if (!free) continue;
    for (const port of ports) handedOut.add(port);
    return base;
  }
  throw new Error(`no free ports at offsets ${offsets.join(", ")}`);
}

/** A TCP port on 127.0.0.1 that was free a moment ago (see `freePortsAt`). */
export function freePort(): Promise<number> {
  return freePortsAt([0]);
}

/** A port on 127.0.0.1 where nothing listens: connections are refused. */
export async function closedPort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port!;
  await server.stop(true);
  return port;
}
