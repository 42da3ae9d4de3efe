import { adminToken, loadConfig } from "@newsroom/shared/config";
import { openRateLimitStore } from "@newsroom/shared/rate-limit";
import type { Runtime } from "@newsroom/shared/runtime";
import { testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort } from "@newsroom/shared/testing/ports";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { type SesEmulator, startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import type { Page } from "playwright-core";
import { createWorkspaceService } from "../../src/app.ts";
import { serveWorkspace } from "../../src/server.ts";

/** A clock the test moves: sign-in codes and sessions read it. */
export function testClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
  };
}

export interface WebHarness {
  /** The web app's base URL (the app is at `${url}/app`); the app's own links point here. */
  url: string;
  origin: string;
  /** The database, bus and rate-limit store the workspace runs on. */
  runtime: Runtime;
  ses: SesEmulator;
  clock: ReturnType<typeof testClock>;
  /** Calls the workspace internal API with the admin token. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A browser-like client of the web app with its own cookies. */
  visitor(ip?: string): WebClient;
  /** A visitor signed in as this address (a member), through the emailed code. */
  signedIn(email: string): Promise<WebClient>;
  /** The newest sign-in code emailed to the address. */
  codeFor(email: string, after?: number): Promise<string>;
  /**
   * Runs `ask` (which asks for a code) and gives the code of the first code email to the address
   * newer than those before it. Codes leave a moment after the answer, so the inbox may still
   * show only the last one when `ask` returns.
   */
  nextCodeFor(email: string, ask: () => Promise<unknown>): Promise<string>;
  close(): Promise<void>;
}

/** The configuration a web harness starts from; `env` adds or replaces variables. */
export function webHarnessConfig(
  ports: { public: number; workspace: number },
  ses: SesEmulator,
  env: Record<string, string>,
) {
  return loadConfig({
    PORT: String(ports.public),
    WORKSPACE_PORT: String(ports.workspace),
    SES_ENDPOINT: ses.url,
    FORMS_FROM_EMAIL: "newsroom@example.com",
    FORMS_TEAM_EMAIL: "team@example.com",
    // Each test client names its own address (X-Forwarded-For), so throttles never cross tests.
    TRUSTED_PROXIES: "127.0.0.1/32,::1/128",
    ...env,
  });
}

/**
 * The workspace alone: its web app and internal API on one local port (WORKSPACE_PORT, which the
 * app's links name too, as PORT), on the test's database (PGlite, or PostgreSQL when DATABASE_URL
 * is set), with the SES emulator and a moveable clock. No other service runs: the workspace's
 * calls to the webhooks and forms services answer 503. `env` adds or replaces configuration
 * (such as DNS_RESOLVERS, or REDIS_URL for the rate limits).
 */
export async function webHarness(env: Record<string, string> = {}): Promise<WebHarness> {
  const ses = await startSesEmulator();
  const port = await freePort();
  const config = webHarnessConfig({ public: port, workspace: port }, ses, env);
  const database = await testDatabase();
  const rateLimits = openRateLimitStore(config.REDIS_URL, config.RATE_LIMIT_PREFIX);
  const runtime = testRuntime({ database, config, rateLimits });
  const clock = testClock();
  const workspace = await createWorkspaceService(runtime, { now: clock.now });
  const server = serveWorkspace(config, workspace, { hostname: "127.0.0.1" });
  return webHarnessOver({
    url: `http://localhost:${port}`,
    internalApi: `${server.url}/internal/v1`,
    adminToken: adminToken(config),
    runtime,
    ses,
    clock,
    async stop() {
      await server.stop();
      await workspace.stop();
      await runtime.close();
      await rateLimits.close();
      await database.close();
    },
  });
}

/**
 * A web harness over a running web app (at `url`) and internal API: the sign-in by emailed code,
 * the admin calls and the visitors, whatever runs the app. `stop` stops what runs it.
 */
export function webHarnessOver(parts: {
  url: string;
  internalApi: string;
  adminToken: string;
  runtime: Runtime;
  ses: SesEmulator;
  clock: ReturnType<typeof testClock>;
  stop(): Promise<void>;
}): WebHarness {
  const { url, ses } = parts;
  const codeEmails = async (email: string) =>
    (await ses.to(email)).filter((e) => e.subject.includes("sign-in code"));
  const codeIn = (email: { body: { text?: string } } | undefined) =>
    email ? /\b(\d{6})\b/.exec(email.body.text ?? "")?.[1] : undefined;
  const harness: WebHarness = {
    url,
    origin: url,
    runtime: parts.runtime,
    ses,
    clock: parts.clock,
    async admin(method, path, body) {
      const response = await fetch(`${parts.internalApi}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${parts.adminToken}`,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    visitor: (ip) => new WebClient(url, ip ?? randomIp()),
    async codeFor(email, after = 0) {
      return eventually(
        async () => {
          // The emulator stamps emails in whole seconds.
          const since = Math.floor(after / 1000);
          const mine = (await codeEmails(email)).filter((e) => e.at >= since);
          return codeIn(mine.at(-1));
        },
        { message: `a sign-in code for ${email}`, timeoutMs: 10_000 },
      );
    },
    async nextCodeFor(email, ask) {
      const before = (await codeEmails(email)).length;
      await ask();
      return eventually(
        async () => {
          const mine = await codeEmails(email);
          return mine.length > before ? codeIn(mine.at(-1)) : undefined;
        },
        { message: `a new sign-in code for ${email}`, timeoutMs: 10_000 },
      );
    },
    async signedIn(email) {
      const client = harness.visitor();
      await client.get("/app/sign-in");
      const code = await harness.nextCodeFor(email, () => client.post("/app/sign-in", { email }));
      await client.get("/app/sign-in/code");
      const answer = await client.post("/app/sign-in/code", { email, code });
      if (answer.status !== 303) throw new Error(`sign-in failed with ${answer.status}`);
      return client;
    },
    async close() {
      await parts.stop();
      await ses.close();
    },
  };
  return harness;
}

export const randomIp = () =>
  `10.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;

export const unique = (who: string) =>
  `${who}-${Math.random().toString(36).slice(2, 10)}@example.com`;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Keeps cookies like a browser and remembers the CSRF token of the last page it read. */
export class WebClient {
  readonly cookies = new Map<string, string>();
  csrf = "";

  constructor(
    readonly base: string,
    readonly ip: string,
  ) {}

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async get(path: string): Promise<Answer> {
    const response = await fetch(this.base + path, {
      headers: { cookie: this.cookieHeader(), "x-forwarded-for": this.ip },
      redirect: "manual",
    });
    this.remember(response);
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, headers: response.headers, text };
  }

  /**
   * Posts a form as a browser on the app's origin would, with the remembered `_csrf` unless the
   * fields set one (null leaves it out). `headers` replace the defaults (such as Origin).
   */
  async post(
    path: string,
    fields: Record<string, string | null> = {},
    headers: Record<string, string | null> = {},
  ): Promise<Answer> {
    const body = new URLSearchParams();
    const withToken = { _csrf: this.csrf, ...fields };
    for (const [name, value] of Object.entries(withToken))
      if (value !== null) body.set(name, value);
    const sent: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      cookie: this.cookieHeader(),
      origin: this.base,
      "x-forwarded-for": this.ip,
    };
    for (const [name, value] of Object.entries(headers)) {
      if (value === null) delete sent[name];
      else sent[name] = value;
    }
    const response = await fetch(this.base + path, {
      method: "POST",
      headers: sent,
      body,
      redirect: "manual",
    });
    this.remember(response);
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, headers: response.headers, text };
  }
}

export const ROLES = ["owner", "admin", "approver", "editor", "viewer"] as const;

/** An organization with one member of every role and `stories` stories waiting for review. */
export async function orgWithMembers(h: WebHarness, slug: string, stories = 1) {
  await h.admin("POST", "/orgs", { slug, name: `Org ${slug}`, newsroom_running: true });
  const members = {} as Record<(typeof ROLES)[number], string>;
  for (const role of ROLES) {
    members[role] = unique(`${slug}-${role}`);
    const added = await h.admin("POST", `/orgs/${slug}/members`, { email: members[role], role });
    if (added.status !== 201) throw new Error(`member not added: ${JSON.stringify(added.body)}`);
  }
  const storyIds: string[] = [];
  for (let i = 0; i < stories; i++) storyIds.push(await storyInReview(h, slug, `story-${i + 1}`));
  return { slug, members, storyIds };
}

/** A story created, given a second version and submitted: it waits in the review queue. */
export async function storyInReview(h: WebHarness, org: string, slug: string): Promise<string> {
  const created = await h.admin("POST", `/orgs/${org}/stories`, {
    type: "press_release",
    slug,
    title: `Title of ${slug}`,
    summary: "A summary",
    body: [{ type: "paragraph", text: "First paragraph." }],
  });
  const id = created.body.id as string;
  await h.admin("POST", `/stories/${id}/transitions`, { action: "submit" });
  return id;
}

/**
 * Signs a person in through the pages, as a browser does: their email, then the code the app
 * sent to the SES inbox; ends on the app's home page.
 */
export async function signInAs(page: Page, h: WebHarness, email: string): Promise<void> {
  await page.goto("/app/sign-in");
  const request = page.locator('form[action="/app/sign-in"]');
  await request.getByLabel("Email address").fill(email);
  const code = await h.nextCodeFor(email, async () => {
    await request.getByRole("button", { name: "Email me a code" }).click();
    await page.waitForURL("**/app/sign-in/code");
  });
  const form = page.locator('form[action="/app/sign-in/code"]');
  await form.getByLabel("Email address").fill(email);
  await form.getByLabel("Six-digit code").fill(code);
  await form.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/app\/$/);
}
