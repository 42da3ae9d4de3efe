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
  return Number.isInteger(low) && low > 2_048 ? low : 32_768;
}

/**
 * A base port such that base + each offset was free a moment ago, for a process that derives
 * ports from one (the cluster takes PORT + 101..104 and + 201..206). The base is chosen at random
 * below the ephemeral range: a port the kernel handed out for port 0 could be taken meanwhile by
 * the local end of any outgoing connection (to PostgreSQL, NATS, Redis), or handed out again.
 */
export async function freePortsAt(offsets: readonly number[]): Promise<number> {
  const span = Math.max(0, ...offsets);
  const high = (await ephemeralLow()) - span - 1;
  const low = high > 11_000 ? 10_000 : 1_024;
  for (let tries = 0; tries < 100; tries++) {
    const base = low + Math.floor(Math.random() * (high - low));
    let free = true;
    for (const offset of offsets) {
      free = await isFree(base + offset);
      if (!free) break;
    }
    if (free) return base;
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
