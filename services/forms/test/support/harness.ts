import { type AddressInfo, createServer, type Socket } from "node:net";
import type { EventBus } from "@newsroom/shared/bus/index";
import { type Config, loadConfig } from "@newsroom/shared/config";
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from "@newsroom/shared/rate-limit";
import type { ServiceHandle } from "@newsroom/shared/service";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import type { SesEmail } from "@newsroom/shared/testing/ses-emulator";
import { createFormsService } from "../../src/app.ts";

// The SES emulator moved to shared (the workspace's sign-in tests use it too); the forms tests
// keep importing it from here.
export {
  type SesEmail,
  type SesEmulator,
  startSesEmulator,
} from "@newsroom/shared/testing/ses-emulator";

/** A small 127.0.0.1 server that refuses every send with `status`, counting the attempts. */
export function startRefusingProvider(status: number) {
  let attempts = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      await request.arrayBuffer();
      attempts += 1;
      const type = status === 400 ? "MessageRejected" : "InternalFailure";
      return Response.json(
        { message: "refused by the test provider" },
        { status, headers: { "x-amzn-errortype": type } },
      );
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    attempts: () => attempts,
    close: () => server.stop(true),
  };
}

/**
 * A 127.0.0.1 provider that accepts every connection, reads the request and never answers: the
 * slowest SES there is. Counts the requests it holds.
 */
export async function startSilentProvider() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("data", () => {});
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  let held = 0;
  server.on("connection", () => {
    held += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Connections accepted so far (one per call in flight). */
    held: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export const random = () => Math.random().toString(36).slice(2, 10);
/** A unique address per call, so every test reads only its own emails. */
export const address = (who = "person") => `${who}-${random()}@example.com`;
/** A client address per call, so per-client limits never cross tests. */
export const clientIp = () =>
  `10.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;

/** A moveable clock. */
export function testClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
  };
}

export interface FormsHarness {
  database: TestDatabase;
  /** The bus the service consumes from: in-process unless the harness was given one. */
  bus: EventBus;
  config: Config;
  service: ServiceHandle;
  clock: ReturnType<typeof testClock>;
  teamAddress: string;
  /** Through `edge()`: every answer carries X-Request-Id and X-Service-Version. */
  handle(request: Request): Promise<Response>;
  post(path: string, body: BodyInit | object, init?: PostInit): Promise<Response>;
  /**
   * Another service instance on the same database (another replica, other settings); with
   * `sameClock`, on this one's clock too.
   */
  sibling(
    env: Record<string, string | undefined>,
    options?: { sameClock?: boolean },
  ): Promise<FormsHarness>;
  close(): Promise<void>;
}

export interface PostInit {
  /** json (default), form (urlencoded) or multipart. */
  as?: "json" | "form" | "multipart";
  ip?: string;
  headers?: Record<string, string>;
}

type Env = Record<string, string | undefined>;

/** A forms service on its own test database, emulator and rate-limit prefix. */
export async function formsHarness(
  env: Env,
  shared?: {
    database: TestDatabase;
    rateLimits: RateLimitStore;
    clock?: ReturnType<typeof testClock>;
  },
  /** A bus to consume from (JetStream); closed by the caller. Default: its own in-process bus. */
  bus?: EventBus,
): Promise<FormsHarness> {
  const database = shared?.database ?? (await testDatabase());
  const redisUrl = requireService("REDIS_URL");
  const rateLimits =
    shared?.rateLimits ??
    (redisUrl ? new RedisRateLimitStore(redisUrl, `t:${random()}:`) : new MemoryRateLimitStore());
  const teamAddress = env.FORMS_TEAM_EMAIL ?? address("team");
  const config = loadConfig({
    FORMS_FROM_EMAIL: "forms@example.com",
    FORMS_TEAM_EMAIL: teamAddress,
    HUMAN_CHECK_MODE: "test",
    PUBLIC_BASE_URL: "https://api.example.test",
    NEWSROOM_HOST: "https://newsrooms.example.test/n",
    ...env,
  });
  // Its own in-process bus, closed with the runtime; the database and limits may be shared.
  const runtime = testRuntime({ database, config, rateLimits, bus });
  const clock = shared?.clock ?? testClock();
  const service = await createFormsService(runtime, { now: clock.now, sweep: false });
  const handle = edgeInProcess((request) => service.app.handle(request));
  const harness: FormsHarness = {
    database,
    bus: runtime.bus,
    config,
    service,
    clock,
    teamAddress,
    handle,
    post(path, body, init = {}) {
      const headers: Record<string, string> = {
        "x-client-ip": init.ip ?? clientIp(),
        ...init.headers,
      };
      let payload: BodyInit;
      const as = init.as ?? "json";
      if (typeof body === "string" || body instanceof FormData || body instanceof Uint8Array) {
        payload = body as BodyInit;
      } else if (as === "json") {
        payload = JSON.stringify(body);
        headers["content-type"] ??= "application/json";
      } else if (as === "form") {
        payload = toSearchParams(body as Record<string, unknown>).toString();
        headers["content-type"] ??= "application/x-www-form-urlencoded";
      } else {
        payload = toFormData(body as Record<string, unknown>);
      }
      return handle(
        new Request(`http://localhost${path}`, { method: "POST", headers, body: payload }),
      );
    },
    sibling: (more, options = {}) =>
      formsHarness(
        { ...env, FORMS_TEAM_EMAIL: teamAddress, ...more },
        { database, rateLimits, clock: options.sameClock ? clock : undefined },
      ),
    async close() {
      await service.stop();
      await runtime.close();
      if (!shared) {
        await rateLimits.close();
        await database.close();
      }
    },
  };
  return harness;
}

/** Form pairs as a browser sends them: arrays repeated, objects bracketed, booleans as words. */
export function formPairs(body: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) pairs.push([name, String(item)]);
    else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value))
        pairs.push([`${name}[${key}]`, String(inner)]);
    } else pairs.push([name, String(value)]);
  }
  return pairs;
}

export function toSearchParams(body: Record<string, unknown>): URLSearchParams {
  return new URLSearchParams(formPairs(body));
}

export function toFormData(body: Record<string, unknown>): FormData {
  const data = new FormData();
  for (const [name, value] of formPairs(body)) data.append(name, value);
  return data;
}

/** The envelope of a person who took ten seconds to fill the form. */
export function envelope(now = Date.now()) {
  return { submission_id: crypto.randomUUID(), started_at: now - 10_000, fax: "" };
}

export function validContact(overrides: Record<string, unknown> = {}) {
  return {
    intent: "websites",
    audience: "organization",
    name: "Ada Lovelace",
    email: address("ada"),
    organization: "Analytical Engines Ltd",
    message: "We would like a new website for our newsroom.",
    consent: true,
    ...envelope(),
    ...overrides,
  };
}

export function validCareer(overrides: Record<string, unknown> = {}) {
  return {
    name: "Grace Hopper",
    email: address("grace"),
    location: "Arlington",
    profile: "https://example.com/grace",
    areas: ["engineering", "research-editorial"],
    years: 12,
    note: "I have built compilers and would like to build newsrooms.",
    consent: true,
    ...envelope(),
    ...overrides,
  };
}

export function validMappingCall(overrides: Record<string, unknown> = {}) {
  return {
    email: address("lead"),
    need: "Our approvals happen in email threads and get lost.",
    stack: { site: "WordPress", approvals: "email", crm: "HubSpot", sign_in: "Google" },
    human_check_token: "test-pass",
    consent: true,
    ...envelope(),
    ...overrides,
  };
}

/** An answer as bytes, all but its request id: status, sorted headers, body. */
export async function answerBytes(response: Response): Promise<string> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== "x-request-id") headers.push(`${name}: ${value}`);
  });
  return `${response.status}\n${headers.sort().join("\n")}\n\n${await response.text()}`;
}

/** The confirmation token in an email's link. */
export function tokenIn(email: SesEmail | undefined): string {
  const match = /\/v1\/public\/newsletter\/confirm\?t=([A-Za-z0-9_-]{43})/.exec(
    email?.body.text ?? "",
  );
  if (!match) throw new Error(`no confirmation link in: ${email?.body.text}`);
  return match[1]!;
}

/**
 * Waits while the current minute is about to end: fixed-window counters (Redis) restart at the
 * minute, and a limit test must not straddle that edge.
 */
export async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 57_000) await Bun.sleep(60_000 - intoMinute + 100);
}

/** One header of a stored email, by name (case-insensitive). */
export function headerOf(email: SesEmail | undefined, name: string): string | undefined {
  return email?.headers?.find((header) => header.name.toLowerCase() === name.toLowerCase())?.value;
}

/**
 * The unsubscribe link of a digest email: the one in its List-Unsubscribe header, which must
 * also be the one in its text. Returned as a path with its query, to send to the service here.
 */
export function unsubscribeLinkIn(email: SesEmail | undefined): string {
  const header = headerOf(email, "List-Unsubscribe");
  const match = /^<(https:\/\/[^>]+)>$/.exec(header ?? "");
  if (!match) throw new Error(`no List-Unsubscribe header in: ${JSON.stringify(email?.headers)}`);
  const link = match[1]!;
  if (!email?.body.text?.includes(link)) throw new Error(`the text lacks the link ${link}`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}
