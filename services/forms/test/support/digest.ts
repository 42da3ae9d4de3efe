import { afterAll, beforeAll } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { type Config, secretsKey } from "@newsroom/shared/config";
import type { Mailer } from "@newsroom/shared/mailer";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { createWorkspaceApp, workspaceCalls } from "@newsroom/workspace/app";
import { weekOf } from "@newsroom/workspace/digest/week";
import { createOrganization } from "@newsroom/workspace/organizations/service";
import { digestSubscriber } from "./fixtures.ts";
import {
  type FormsHarness,
  formsHarness,
  random,
  type SesEmail,
  type SesEmulator,
  startSesEmulator,
} from "./harness.ts";

export const ADMIN_TOKEN = "digest-test-admin-token-0001";
const DAY = 24 * 3600_000;

export interface DigestSetup {
  forms: FormsHarness;
  house: { id: string; slug: string; name: string };
  /** The workspace internal API on the same database, config and clock. */
  workspace: (request: Request) => Promise<Response>;
  /** Another workspace (another replica or other settings) on the same database and clock. */
  workspaceWith(
    config: Partial<Config>,
    mailer?: Mailer | null,
  ): (request: Request) => Promise<Response>;
  send(body?: object, handle?: (request: Request) => Promise<Response>): Promise<Response>;
  /** Subscribes and confirms an address through the forms routes. */
  subscriber(email: string): Promise<void>;
  /** The digest issues (not confirmation or welcome emails) an address received. */
  issuesTo(email: string): Promise<SesEmail[]>;
  close(): Promise<void>;
}

/**
 * The forms service (subscribe, confirm, unsubscribe) and the workspace's digest sender on one
 * database, with the house newsroom's organization. The clock stands at Wednesday noon (UTC) of
 * the current week, so items placed relative to it never straddle a week's edge.
 */
export async function digestSetup(ses: SesEmulator, env: Record<string, string> = {}) {
  const houseSlug = `house-${random()}`;
  const forms = await formsHarness({ SES_ENDPOINT: ses.url, HOUSE_ORG: houseSlug, ...env });
  toMidweek(forms);
  const org = await createOrganization(forms.database.db, {
    slug: houseSlug,
    name: `House ${houseSlug}`,
    newsroom_running: true,
  });
  const bus = new MemoryBus();
  const workspaceWith = (config: Partial<Config>, mailer?: Mailer | null) =>
    workspaceOn(forms, bus, config, mailer);
  const workspace = workspaceWith({});
  const setup: DigestSetup = {
    forms,
    house: { id: org.id, slug: houseSlug, name: org.name },
    workspace,
    workspaceWith,
    send: (body = {}, handle = workspace) =>
      handle(
        new Request("http://localhost/internal/v1/digest/send", {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      ),
    async subscriber(email) {
      await digestSubscriber(forms, ses, email);
    },
    issuesTo: async (email) => (await ses.to(email)).filter((mail) => isIssue(mail.subject)),
    async close() {
      await bus.close();
      await forms.close();
    },
  };
  return setup;
}

/**
 * The setup of a digest test file: `digestSetup` on an SES v2 emulator of its own, started
 * before the file's first test and closed after its last. Destructure it at the top of the file:
 * `setup` is empty until `beforeAll` fills it in place.
 */
export function digestWorld(env: Record<string, string> = {}) {
  const world = { setup: {} as DigestSetup };
  let stop = async () => {};
  beforeAll(async () => {
    const ses = await startSesEmulator();
    const setup = await digestSetup(ses, env);
    stop = async () => {
      await setup.close();
      await ses.close();
    };
    Object.assign(world.setup, setup);
  });
  afterAll(() => stop());
  return world;
}

/** Moves the forms clock to Wednesday noon (UTC) of the current week. */
export function toMidweek(forms: FormsHarness): void {
  const midweek = weekOf(new Date()).start.getTime() + 2.5 * DAY;
  forms.clock.advance(midweek - Date.now());
}

/**
 * The workspace internal API (the digest and newsletter senders) on the forms service's
 * database, config (with `config` over it) and clock.
 */
export function workspaceOn(
  forms: FormsHarness,
  bus: MemoryBus,
  config: Partial<Config> = {},
  mailer?: Mailer | null,
): (request: Request) => Promise<Response> {
  const merged = { ...forms.config, ...config };
  const app = createWorkspaceApp(
    {
      db: forms.database.db,
      bus,
      secretsKey: secretsKey(merged),
      adminToken: ADMIN_TOKEN,
      serviceEnv: merged.SERVICE_ENV,
      kickRelay: () => {},
      calls: workspaceCalls({}),
    },
    { digest: { config: merged, mailer, now: forms.clock.now } },
  );
  return edgeInProcess((request) => app.handle(request));
}

/** Digest issues (not confirmation or welcome emails) among emails. */
export const isIssue = (subject: string) => subject.includes("weekly digest:");
