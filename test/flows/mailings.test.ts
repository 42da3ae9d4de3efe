import { describe, expect, test } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { secretsKey } from "@newsroom/shared/config";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { createWorkspaceApp, workspaceCalls } from "@newsroom/workspace/app";
import {
  ADMIN_TOKEN,
  type DigestSetup,
  digestWorld,
  internalPost,
} from "../../services/forms/test/support/digest.ts";
import { newsletterOrg, publishedStory } from "../../services/forms/test/support/fixtures.ts";
import { address, random } from "../../services/forms/test/support/harness.ts";

/**
 * A flow across two services: the operator's `digest send` and `newsletter send` go to the
 * workspace's internal API (and its CLI), which forwards them to the forms service that owns the
 * lists and the send-once records, and answers what forms answers.
 */
const { setup } = digestWorld();
const HOUR = 3600_000;

/** The workspace's internal API, its forms calls going to `forms` (in this process). */
function workspaceFor(
  setup: DigestSetup,
  forms: ((request: Request) => Promise<Response>) | null = setup.forms.handle,
) {
  const bus = new MemoryBus();
  const config = setup.forms.config;
  const app = createWorkspaceApp({
    db: setup.forms.database.db,
    bus,
    secretsKey: secretsKey(config),
    adminToken: ADMIN_TOKEN,
    serviceEnv: config.SERVICE_ENV,
    kickRelay: () => {},
    calls: workspaceCalls({ ADMIN_TOKEN }, forms ? { forms } : {}),
    addresses: { houseOrg: config.HOUSE_ORG, newsroomHost: config.NEWSROOM_HOST },
  });
  return edgeInProcess((request) => app.handle(request));
}

describe("the workspace's mailing commands", () => {
  test("`npm run admin -- digest send` calls the workspace and prints the run; twice sends once", async () => {
    const { forms, house } = setup;
    const reader = address("cli");
    await setup.subscriber(reader);
    await publishedStory(forms.database.db, house.slug, {
      slug: `cli-${random()}`,
      title: "Through the command line",
      publishedAt: new Date(forms.clock.now().getTime() - HOUR),
    });
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: workspaceFor(setup) });
    try {
      const run = async () => {
        const child = Bun.spawn(["npm", "run", "--silent", "admin", "--", "digest", "send"], {
          cwd: new URL("../..", import.meta.url).pathname,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            ADMIN_TOKEN,
            WORKSPACE_URL: `http://127.0.0.1:${server.port}`,
          },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
        return { code, run: JSON.parse(out.slice(out.indexOf("{"))) };
      };
      const first = await run();
      expect(first.code).toBe(0);
      expect(first.run.object).toBe("digest_run");
      expect(first.run.sent).toBeGreaterThanOrEqual(1);
      expect(await setup.issuesTo(reader)).toHaveLength(1);

      const second = await run();
      expect(second.code).toBe(0);
      expect(second.run.sent).toBe(0);
      expect(second.run.already_sent).toBeGreaterThanOrEqual(1);
      expect(await setup.issuesTo(reader)).toHaveLength(1);
    } finally {
      server.stop(true);
    }
  }, 30_000);

  test("the forms service's refusals come back as the workspace's own answers", async () => {
    const workspace = workspaceFor(setup);
    const badWeek = await workspace(internalPost("/internal/v1/digest/send", { week: "2021-W53" }));
    expect(badWeek.status).toBe(422);
    expect((await badWeek.json()).error.fields[0].reason).toBe("invalid_format");

    // The organization is the workspace's to find: a slug or an id, else its own 404.
    const missing = await workspace(
      internalPost(`/internal/v1/orgs/nobody-${random()}/newsletter/send`),
    );
    expect(missing.status).toBe(404);
    const off = await newsletterOrg(setup.forms.database.db, { enabled: false });
    const refused = await workspace(internalPost(`/internal/v1/orgs/${off.slug}/newsletter/send`));
    // Next to the SES emulator there are no contact lists: forms answers 503 before anything else.
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.code).toBe("forms_unavailable");
  });

  test("forms out of reach: 503 forms_unavailable, nothing sent", async () => {
    const workspace = workspaceFor(setup, null);
    const response = await workspace(internalPost("/internal/v1/digest/send"));
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe("forms_unavailable");
    expect(response.headers.get("retry-after")).not.toBeNull();
  });
});
