import { createServer } from "node:net";
import { eventually as waitUntil } from "./eventually.ts";

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A port on 127.0.0.1 where nothing listens: connections are refused. */
export async function closedPort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/**
 * The former polling helper, kept as a thin wrapper until its last caller moves to
 * `eventually` in ./eventually.ts: done when `check` returns anything but undefined.
 * @deprecated use `eventually` from ./eventually.ts
 */
export function eventually<T>(
  check: () => Promise<T | undefined>,
  ms = 20_000,
  what = "condition",
): Promise<T> {
  return waitUntil(check, (value): value is T => value !== undefined, {
    message: what,
    timeoutMs: ms,
    everyMs: 100,
  });
}
