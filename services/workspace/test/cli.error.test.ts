import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliAgainst } from "./support/cli.ts";
import { type Harness, workspaceHarness } from "./support/harness.ts";

/** Usage mistakes are refused before any request, naming the flag and what it takes. */
let h: Harness;
let cli: ReturnType<typeof cliAgainst>;
beforeAll(async () => {
  h = await workspaceHarness();
  cli = cliAgainst(h);
  await h.call("POST", "/orgs", { slug: "usage", name: "Usage" });
});
afterAll(async () => {
  cli.stop();
  await h.close();
});

describe("usage mistakes (exit code 2, nothing sent)", () => {
  test("an unknown flag is refused, naming the flags the command takes", async () => {
    const run = await cli.admin("org-create", "typo", "Typo", "--newsroom-runing", "true");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("unknown flag --newsroom-runing");
    expect(run.stderr).toContain("--newsroom-running");
    expect((await h.call("GET", "/orgs/typo")).status).toBe(404);
  });

  test("a value outside an enum names the allowed values", async () => {
    const run = await cli.admin("member-add", "usage", "a@example.com", "--role", "boss");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--role: "boss" is not allowed');
    expect(run.stderr).toContain("owner, admin, approver, editor, viewer");
    const scopes = await cli.admin(
      "key-create",
      "usage",
      "--environment",
      "test",
      "--scopes",
      "everything",
      "--lifetime-days",
      "30",
    );
    expect(scopes.stderr).toContain("stories:read, approvals:read, feed:read, webhooks:read");
    const days = await cli.admin(
      "key-create",
      "usage",
      "--environment",
      "test",
      "--scopes",
      "feed:read",
      "--lifetime-days",
      "31",
    );
    expect(days.stderr).toContain("allowed values: 30, 90, 180, 365");
    const action = await cli.admin("story-transition", "usage/x", "publsh");
    expect(action.stderr).toContain(
      "submit, approve, reject, schedule, unschedule, publish, unpublish, archive",
    );
  });

  test("a missing flag or argument is named", async () => {
    const flag = await cli.admin("member-add", "usage", "a@example.com");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("missing --role owner|admin|approver|editor|viewer");
    const argument = await cli.admin("org-create", "only-slug");
    expect(argument.code).toBe(2);
    expect(argument.stderr).toContain("missing <name>");
    const pattern = await cli.admin("org-create", "Not A Slug", "Name");
    expect(pattern.code).toBe(2);
    expect(pattern.stderr).toContain("<slug>: Expected string to match");
  });

  test("--help prints a command's usage; no command lists them all", async () => {
    const help = await cli.admin("key-create", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "key-create <org> --environment live|test --scopes {stories:read|approvals:read|feed:read|webhooks:read},... --lifetime-days 30|90|180|365",
    );
    const overview = await cli.admin("--help");
    expect(overview.code).toBe(0);
    for (const name of [
      "org-list",
      "story-list",
      "key-list",
      "endpoint-list",
      "delivery-list",
      "member-list",
    ]) {
      expect(overview.stdout).toContain(name);
    }
    const unknown = await cli.admin("org-delete", "usage");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command org-delete");
  });

  test("an unknown story status in a list names the allowed ones (CLI and API)", async () => {
    const run = await cli.admin("story-list", "usage", "--status", "live");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("draft, ai_generated, review_required");
    const api = await h.call("GET", "/orgs/usage/stories?status=live");
    expect(api.status).toBe(422);
    expect(api.body.error.message).toContain("allowed: draft");
  });
});
