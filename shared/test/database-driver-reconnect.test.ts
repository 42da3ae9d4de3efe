import { afterEach, describe, expect, test } from "bun:test";
import net from "node:net";
import postgres from "postgres";
import { requireService } from "../src/testing/database.ts";

/**
 * The PostgreSQL driver (postgres.js, patched: `patches/`) after a connection closes while a
 * small write of it is still waiting for the next turn of the event loop, as when the database
 * ends its sessions during an outage. Unpatched, the connection's next start never sends its
 * startup message: every later query on it waits out `connect_timeout` and fails, for the
 * life of the process.
 */
const databaseUrl = requireService("DATABASE_URL");

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
