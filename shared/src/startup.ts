import { ConfigError } from "./config.ts";

/**
 * A start-up failure the operator fixes in the environment (a port already taken, a data folder
 * another process holds): entry points print its one line, naming the variable, and exit 1.
 */
export class StartupError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Cannot start: ${variable} ${message}`);
    this.name = "StartupError";
  }
}

export type PortVariable =
  | "PORT"
  | "WORKSPACE_PORT"
  | "WORKSPACE_WEB_PORT"
  | "SES_LOCAL_PORT"
  | "METRICS_PORT";

function isAddressInUse(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EADDRINUSE";
}

function portInUse(variable: PortVariable, port: number): StartupError {
  return new StartupError(
    variable,
    `${port} is already in use: stop what listens there, or choose another port with ${variable}=<port>`,
  );
}

/** Runs `listen` (a Bun.serve); a port already in use becomes a StartupError naming `variable`. */
export function listenOn<T>(variable: PortVariable, port: number, listen: () => T): T {
  try {
    return listen();
  } catch (error) {
    if (isAddressInUse(error)) throw portInUse(variable, port);
    throw error;
  }
}

type ServeOptions = Parameters<typeof Bun.serve>[0];

/**
 * Bun.serve on the port `variable` chose; a port already in use is a StartupError naming it.
 * Never SO_REUSEPORT: a second process on the port must fail, not share its requests.
 */
export function serveOn(
  variable: PortVariable,
  options: ServeOptions,
): ReturnType<typeof Bun.serve> {
  return listenOn(variable, Number((options as { port?: unknown }).port), () =>
    Bun.serve({ ...options, reusePort: false } as ServeOptions),
  );
}

/** Throws a StartupError naming `variable` when the port is taken (for servers we do not start). */
export function checkPortFree(variable: PortVariable, port: number, hostname?: string): void {
  serveOn(variable, { port, hostname, fetch: () => new Response(null, { status: 503 }) }).stop(
    true,
  );
}

/** Whether something accepts a TCP connection on 127.0.0.1:port. */
export function portAccepts(port: number): Promise<boolean> {
  return Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data() {},
      open(socket) {
        socket.end();
      },
    },
  }).then(
    () => true,
    () => false,
  );
}

/** Whether something accepts a TCP connection on 127.0.0.1:port within `ms`. */
function accepts(port: number, ms: number): Promise<boolean> {
  return Promise.race([portAccepts(port), Bun.sleep(ms).then(() => false)]);
}

/**
 * Refuses, within a second and before anything heavy loads, a port that anything listens on: a
 * connection to it succeeds (whatever the listener, even one sharing with SO_REUSEPORT), or
 * binding it fails (a listener on another address).
 */
export async function refuseBusyPort(
  variable: PortVariable,
  port: number,
  hostname?: string,
): Promise<void> {
  await refuseListenedPort(variable, port);
  checkPortFree(variable, port, hostname);
}

/** Refuses a port that accepts a connection on 127.0.0.1 (the connection test alone). */
export async function refuseListenedPort(variable: PortVariable, port: number): Promise<void> {
  if (port !== 0 && (await accepts(port, 500))) throw portInUse(variable, port);
}

/** For entry points: runs the start; a StartupError or ConfigError prints one line and exits 1. */
export async function startOrExit<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof StartupError || error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}
