/**
 * Before the cluster starts its six processes: are PostgreSQL, NATS and Redis there? One line
 * for each that is not, instead of a stack trace from every process and a wait for readiness.
 */
import { connect } from "@nats-io/transport-node";
import postgres from "postgres";

const TIMEOUT_MS = 3_000;

interface Backend {
  variable: "DATABASE_URL" | "NATS_URL" | "REDIS_URL";
  what: string;
  check(url: string): Promise<void>;
}

const BACKENDS: Backend[] = [
  {
    variable: "DATABASE_URL",
    what: "the database (PostgreSQL)",
    check: async (url) => {
      const sql = postgres(url, { max: 1, connect_timeout: TIMEOUT_MS / 1000, onnotice: () => {} });
      try {
        await sql`select 1`;
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
  },
  {
    variable: "NATS_URL",
    what: "NATS",
    check: async (url) => {
      const nc = await connect({ servers: url, timeout: TIMEOUT_MS, reconnect: false });
      await nc.close();
    },
  },
  {
    variable: "REDIS_URL",
    what: "Redis",
    check: async (url) => {
      const client = new Bun.RedisClient(url, {
        connectionTimeout: TIMEOUT_MS,
        autoReconnect: false,
        enableOfflineQueue: false,
      });
      try {
        await client.connect();
        await client.send("PING", []);
      } finally {
        client.close();
      }
    },
  },
];

/** Where a URL points, without its user or password. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an unreadable address";
  }
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]!.slice(0, 160);
}

function withTimeout(work: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** One line for each of DATABASE_URL, NATS_URL and REDIS_URL that is unset or does not answer. */
export async function unreachableBackends(
  env: Record<string, string | undefined>,
): Promise<string[]> {
  const lines = await Promise.all(
    BACKENDS.map(async ({ variable, what, check }) => {
      const url = env[variable];
      if (!url) return `${variable} is required: the cluster runs on ${what}`;
      try {
        await withTimeout(check(url));
        return null;
      } catch (error) {
        return `Cannot start: ${what} at ${hostOf(url)} (${variable}) does not answer: ${reasonOf(error)}`;
      }
    }),
  );
  return lines.filter((line) => line !== null);
}
