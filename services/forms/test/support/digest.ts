import { afterAll, beforeAll } from "bun:test";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { weekOf } from "../../src/mailings/week.ts";
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

type Handle = (request: Request) => Promise<Response>;

export interface DigestSetup {
  forms: FormsHarness;
  house: { id: string; slug: string; name: string };
  /** Another forms service (another replica or other settings) on the same database and clock. */
  formsWith(env: Record<string, string | undefined>): Promise<Handle>;
  /** `POST /internal/v1/digest/send` with the admin token, to `handle` (this service's default). */
  send(body?: object, handle?: Handle): Promise<Response>;
  /** Subscribes and confirms an address through the forms routes. */
  subscriber(email: string): Promise<void>;
  /** The digest issues (not confirmation or welcome emails) an address received. */
  issuesTo(email: string): Promise<SesEmail[]>;
  close(): Promise<void>;
}

/** A request to the mailings' internal API, with the admin token. */
export function internalPost(path: string, body: object = {}): Request {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * The forms service (subscribe, confirm, unsubscribe, and the digest send of its internal API)
 * with the house newsroom's organization. The clock stands at Wednesday noon (UTC) of the
 * current week, so items placed relative to it never straddle a week's edge.
 */
export async function digestSetup(ses: SesEmulator, env: Record<string, string> = {}) {
  const houseSlug = `house-${random()}`;
  const forms = await formsHarness({
    SES_ENDPOINT: ses.url,
    HOUSE_ORG: houseSlug,
    ADMIN_TOKEN,
    ...env,
  });
  toMidweek(forms);
  const org = await insertOrganization(forms.database.db, {
    slug: houseSlug,
    name: `House ${houseSlug}`,
    newsroomRunning: true,
  });
  const siblings: FormsHarness[] = [];
  const setup: DigestSetup = {
    forms,
    house: { id: org.id, slug: houseSlug, name: org.name },
    async formsWith(more) {
      const sibling = await forms.sibling(more, { sameClock: true });
      siblings.push(sibling);
      return sibling.handle;
    },
    send: (body = {}, handle = forms.handle) =>
      handle(internalPost("/internal/v1/digest/send", body)),
    async subscriber(email) {
      await digestSubscriber(forms, ses, email);
    },
    issuesTo: async (email) => (await ses.to(email)).filter((mail) => isIssue(mail.subject)),
    async close() {
      for (const sibling of siblings) await sibling.close();
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

/** Digest issues (not confirmation or welcome emails) among emails. */
export const isIssue = (subject: string) => subject.includes("weekly digest:");
