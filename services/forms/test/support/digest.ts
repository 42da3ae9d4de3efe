import { expect } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { type Config, secretsKey } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import type { Mailer } from "@newsroom/shared/mailer";
import { createWorkspaceApp } from "@newsroom/workspace/app";
import { weekOf } from "@newsroom/workspace/digest/week";
import { createOrganization } from "@newsroom/workspace/organizations/service";
import {
  envelope,
  type FormsHarness,
  formsHarness,
  random,
  type SesEmulator,
  tokenIn,
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
  const midweek = weekOf(new Date()).start.getTime() + 2.5 * DAY;
  forms.clock.advance(midweek - Date.now());
  const org = await createOrganization(forms.database.db, {
    slug: houseSlug,
    name: `House ${houseSlug}`,
    newsroom_running: true,
  });
  const bus = new MemoryBus();
  const workspaceWith = (config: Partial<Config>, mailer?: Mailer | null) => {
    const merged = { ...forms.config, ...config };
    const app = createWorkspaceApp(
      {
        db: forms.database.db,
        bus,
        secretsKey: secretsKey(merged),
        adminToken: ADMIN_TOKEN,
        serviceEnv: merged.SERVICE_ENV,
        allowInsecureTargets: false,
        kickRelay: () => {},
      },
      { digest: { config: merged, mailer, now: forms.clock.now } },
    );
    return edge((request) => app.handle(request), { trustedProxies: "" });
  };
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
      await forms.post("/v1/public/newsletter/subscribe", {
        email,
        consent: true,
        ...envelope(forms.clock.now().getTime()),
      });
      const confirmation = (await ses.to(email)).find((mail) => mail.subject.startsWith("Confirm"));
      const confirmed = await forms.post("/v1/public/newsletter/subscribe/confirm", {
        t: tokenIn(confirmation),
      });
      expect(confirmed.status).toBe(200);
    },
    async close() {
      await bus.close();
      await forms.close();
    },
  };
  return setup;
}

/** Digest issues (not confirmation or welcome emails) among emails. */
export const isIssue = (subject: string) => subject.includes("weekly digest:");
