import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "@newsroom/shared/db/index";
import { schema } from "@newsroom/shared/db/index";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

const databaseUrl = requireService("DATABASE_URL");

/** The statements a `submit` through the internal API sends (the client logs each one it sends). */
describe.skipIf(!databaseUrl)("a transition's statements on PostgreSQL", () => {
  let h: Harness;
  let own: TestDatabase;
  let statements: string[] = [];
  let client: postgres.Sql;
  beforeAll(async () => {
    own = await testDatabase({ backend: "postgres" });
    client = postgres(own.url!, {
      // One connection: its statements are prepared by the first submit, as a warm pool's are.
      max: 1,
      onnotice: () => {},
      debug: (_connection, query) => statements.push(query.trim().replace(/\s+/g, " ")),
    });
    const db = drizzle(client, { schema }) as unknown as Db;
    const database: TestDatabase = {
      ...own,
      db,
      close: async () => {
        await client.end();
        await own.close();
      },
    };
    h = await workspaceHarness({ database });
  });
  afterAll(() => h.close());

  test("submit: the lock, the story's update and its outbox event in one transaction", async () => {
    const { storyId } = await orgWithDraft(h, "statements");
    const warmUp = await h.call("POST", "/orgs/statements/stories", {
      type: "press_release",
      slug: "warm-up",
      title: "Warm-up",
    });
    await transition(h, warmUp.body.id, "submit");
    statements = [];
    const answer = await transition(h, storyId, "submit");
    expect(answer.body.status).toBe("review_required");
    const verbs = statements.map((statement) => statement.split(" ")[0]!.toLowerCase());
    // No read of the story's organization before the lock: the lock reads it with the story.
    expect(verbs).toHaveLength(5);
    expect([verbs[0], verbs[1], verbs[4]]).toEqual(["begin", "select", "commit"]);
    expect(statements[1]).toEndWith("for update");
    // The writes are sent together, in whichever order the client builds them.
    const writes = statements.slice(2, 4).map((statement) => statement.split(" ", 3).join(" "));
    expect(writes.sort()).toEqual(['insert into "outbox_events"', 'update "stories" set']);
  });

  test("a story of any organization, by its id alone; an unknown id writes nothing", async () => {
    const { storyId } = await orgWithDraft(h, "statements-other");
    expect((await transition(h, storyId, "submit")).body.status).toBe("review_required");
    statements = [];
    const missing = await transition(h, "00000000-0000-4000-8000-000000000000", "submit");
    expect(missing.status).toBe(404);
    expect(statements.some((statement) => /^(update|insert)/i.test(statement))).toBe(false);
  });
});
