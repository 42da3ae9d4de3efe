import { afterEach, describe, expect, test } from "bun:test";
import net from "node:net";
import postgres from "postgres";
import { isDatabaseUnavailable } from "../src/db/unavailable.ts";
import { requireService } from "../src/testing/database.ts";

/**
 * The PostgreSQL driver (postgres.js) where its patch (`patches/`) mends it:
 * - a connection that closed while a small write of it waited for the next turn of the event
 *   loop, as when the database ends its sessions: unpatched, its next start never sent its
 *   startup message, so every later query on it waited out `connect_timeout` and failed, for
 *   the life of the process;
 * - a server that closes the connection during its start: unpatched, the driver started again
 *   at once, for ever, and the query waited until the server took connections again.
 */
const databaseUrl = requireService("DATABASE_URL");

describe("the database driver against a server that closes every connection as it starts", () => {
  test("the query fails at once as a closed connection (a 503), and is not held", async () => {
    let connections = 0;
    const server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open() {
          connections += 1;
        },
        // The startup message, answered by closing the connection without a word.
        data(socket) {
          socket.end();
        },
      },
    });
    const sql = postgres(`postgres://nobody@127.0.0.1:${server.port}/none`, {
      max: 1,
      onnotice: () => {},
      connect_timeout: 1,
      backoff: () => 0.05,
    });
    try {
      const started = performance.now();
      const answer = await Promise.race([
        sql`select 1`.then(
          () => "answered",
          (error: unknown) => error,
        ),
        Bun.sleep(3_000).then(() => "still waiting after 3 s"),
      ]);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(isDatabaseUnavailable(answer)).toBe(true);
      expect((answer as { code?: string }).code).toBe("CONNECTION_CLOSED");
      expect(connections).toBe(1);
    } finally {
      await sql.end({ timeout: 0 });
      server.stop(true);
    }
  });
});

describe.skipIf(!databaseUrl)("the database driver after a connection closed mid-write", () => {
  let sql: postgres.Sql | undefined;
  afterEach(async () => {
    await sql?.end({ timeout: 1 });
  });

  test("the connection opens again at once and answers", async () => {
    const url = new URL(databaseUrl!);
    const sockets: net.Socket[] = [];
    // `socket` is the driver's documented option for a socket of one's own; its types omit it.
    const options = {
      max: 1,
      onnotice: () => {},
      connect_timeout: 2,
      backoff: () => 0,
      // The driver's own sockets, kept so that the test can close one at a chosen moment.
      socket: () => {
        const socket = net.connect(Number(url.port || 5432), url.hostname);
        sockets.push(socket);
        return socket;
      },
    };
    sql = postgres(databaseUrl!, options);
    expect([...(await sql`select 1 as one`)]).toEqual([{ one: 1 }]);

    // The query's bytes wait for the next turn of the event loop; in the same turn the socket
    // reports its close (as when the server's close arrives with the data that led to the write).
    const lost = sql`select 2 as two`.then(
      () => "answered",
      (error: { code?: string }) => error.code,
    );
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    const socket = sockets.at(-1)!;
    socket.destroy();
    socket.emit("close", false);
    expect(await lost).toBe("CONNECTION_CLOSED");

    const started = performance.now();
    const answer = await sql`select 3 as three`.then(
      (rows) => [...rows],
      (error: { code?: string }) => error.code,
    );
    const ms = performance.now() - started;
    expect(answer).toEqual([{ three: 3 }]);
    expect(ms).toBeLessThan(1_000);
    expect(sockets.length).toBe(2);
  });
});
