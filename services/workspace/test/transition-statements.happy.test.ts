import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "@newsroom/shared/db/index";
import { schema } from "@newsroom/shared/db/index";
import {
  requireService,
  type TestDatabase,
  testDatabase,
  withDatabase,
} from "@newsroom/shared/testing/database";
import { type TcpProxy, tcpProxy } from "@newsroom/shared/testing/tcp-proxy";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { relayOnce } from "../src/outbox/relay.ts";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

const databaseUrl = requireService("DATABASE_URL");

/** The statements a `submit` through the internal API sends (the client logs each one it sends). */
describe.skipIf(!databaseUrl)("a transition's statements on PostgreSQL", () => {
  let h: Harness;
  let own: TestDatabase;
  let statements: string[] = [];
  let client: postgres.Sql;
  let proxy: TcpProxy;
  beforeAll(async () => {
    own = await testDatabase({ backend: "postgres" });
    // Through a proxy that counts what the client sends.
    const real = new URL(own.url!);
    proxy = tcpProxy({ hostname: real.hostname, port: Number(real.port || 5432) });
    const proxied = new URL(own.url!);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    client = postgres(withDatabase(proxied.toString(), real.pathname.slice(1)), {
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
        proxy.cut();
        await own.close();
      },
    };
    h = await workspaceHarness({ database });
  });
  afterAll(() => h.close());

  test("submit: the story read, then one statement writes it and its outbox event", async () => {
    const { storyId } = await orgWithDraft(h, "statements");
    const warmUp = await h.call("POST", "/orgs/statements/stories", {
      type: "press_release",
      slug: "warm-up",
      title: "Warm-up",
    });
    await transition(h, warmUp.body.id, "submit");
    statements = [];
    const sendsBefore = proxy.clientSends;
    const answer = await transition(h, storyId, "submit");
    const sends = proxy.clientSends - sendsBefore;
    expect(answer.body.status).toBe("review_required");
    // No read of the story's organization first, no transaction: the read, then the write.
    expect(statements).toHaveLength(2);
    expect(statements[0]).toStartWith("select ");
    expect(statements[0]).toContain("xmin");
    // One statement: the story's update, only while it is the row read, and its event.
    expect(statements[1]).toStartWith('with stories as (update "stories" set');
    expect(statements[1]).toContain("xmin = $");
    expect(statements[1]).toContain('insert into "outbox_events"');
    // Two sends, so two round trips: prepared, no statement waits for the server to describe
    // its parameters first.
    expect(sends).toBe(2);
  });

  test("approve: the approval decision is written by the same statement", async () => {
    const { storyId } = await orgWithDraft(h, "statements-approve");
    await transition(h, storyId, "submit");
    statements = [];
    const answer = await transition(h, storyId, "approve");
    expect(answer.body.status).toBe("approved");
    expect(statements).toHaveLength(2);
    expect(statements[1]).toContain('insert into "approval_decisions"');
    expect(statements[1]).toContain('insert into "outbox_events"');
  });

  test("a story of any organization, by its id alone; an unknown id writes nothing", async () => {
    const { storyId } = await orgWithDraft(h, "statements-other");
    expect((await transition(h, storyId, "submit")).body.status).toBe("review_required");
    statements = [];
    const missing = await transition(h, "00000000-0000-4000-8000-000000000000", "submit");
    expect(missing.status).toBe(404);
    expect(statements.some((statement) => /^(update|insert)/i.test(statement))).toBe(false);
  });

  test("a relay pass: the unpublished events read and marked, one round trip each", async () => {
    const { storyId } = await orgWithDraft(h, "statements-relay");
    const draft = async (slug: string) =>
      (
        await h.call("POST", "/orgs/statements-relay/stories", {
          type: "press_release",
          slug,
          title: slug,
        })
      ).body.id as string;
    const warmUp = await draft("relay-warm-up");
    // Warm-up: a pass with events, so the connection prepares each of its statements once.
    await transition(h, warmUp, "submit");
    expect((await relayOnce(h.database.db, h.bus)).published).toBeGreaterThan(0);
    // Then a pass with two: the same statements, whatever the number of events.
    await transition(h, storyId, "submit");
    await transition(h, await draft("relay-second"), "submit");
    statements = [];
    const sendsBefore = proxy.clientSends;
    const pass = await relayOnce(h.database.db, h.bus);
    const sends = proxy.clientSends - sendsBefore;
    expect(pass.published).toBe(2);
    expect(statements.map((statement) => statement.split(" ")[0]!.toLowerCase())).toEqual([
      "select",
      "update",
    ]);
    // Prepared, whatever the number of events marked: no round trip to describe parameters.
    expect(sends).toBe(2);
    expect((await relayOnce(h.database.db, h.bus)).published).toBe(0);
  });
});
