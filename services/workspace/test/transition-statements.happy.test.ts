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
      max: 2,
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
    statements = [];
    const answer = await transition(h, storyId, "submit");
    expect(answer.body.status).toBe("review_required");
    const verbs = statements.map((statement) => statement.split(" ")[0]!.toLowerCase());
    // No read of the story's organization before the lock: the lock reads it with the story.
    expect(verbs).toEqual(["begin", "select", "update", "insert", "commit"]);
    expect(statements[1]).toEndWith("for update");
    expect(statements[3]).toStartWith('insert into "outbox_events"');
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
