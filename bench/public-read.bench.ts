/**
 * Public reads through the embedded gateway against a bare Bun.serve answering the same bytes from
 * memory, in the same run, taking turns in ten slices: `GET /v1/public/newsroom` and one item,
 * 50 concurrent connections, read cache warm. Then the keyset cost: index page 1 against page 40
 * over 10,000 published items, read from the database each time (past the cache).
 * Run: `bun bench/public-read.bench.ts [seconds]`. Prints Markdown tables for bench/RESULTS.md.
 */
import { createGateway } from "@newsroom/gateway/app";
import { createPublicReadService } from "@newsroom/public-read/app";
import { decodeCursor, type Position } from "@newsroom/public-read/content/cursor";
import { newsroomIndex, PAGE_SIZE } from "@newsroom/public-read/content/service";
import { loadConfig } from "@newsroom/shared/config";
import { organizations } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { openRuntime } from "@newsroom/shared/runtime";
import { serviceEntry } from "@newsroom/shared/service";
import { insertStories, seedDemo } from "@newsroom/workspace/demo/seed";
import { syntheticStories } from "@newsroom/workspace/demo/synthetic";
import { getter, type LoadResult, runPaired } from "./support/load.ts";

const SECONDS = Number(process.argv[2] ?? 10);
const CONCURRENCY = 50;
/** The bare server and the gateway take turns, this many each, sharing the seconds. */
const ROUNDS = 10;
const BIG = 10_000;

type Result = LoadResult;

log.setSilent(true);
// One address sends every request: the public read limit must not be what is measured.
const config = loadConfig({ PGLITE_DIR: "memory", PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000000" });
const runtime = await openRuntime(config);
const { db } = runtime.database;
await seedDemo(db, config.HOUSE_ORG, config.SERVICE_ENV);
const publicRead = await createPublicReadService(runtime);
const gateway = createGateway({
  config,
  mode: "embedded",
  rateLimits: runtime.rateLimits,
  upstreams: { "public-read": serviceEntry(publicRead) },
  readinessChecks: [],
});
const server = Bun.serve({
  port: 0,
  fetch: edge((request) => gateway.handle(request), { trustedProxies: "" }),
});
const base = `http://localhost:${server.port}`;

const index = await (await fetch(`${base}/v1/public/newsroom`)).json();
const itemPath = `/v1/public/newsroom/${index.items[0].slug}`;
const rows: string[] = [];
const ratios: string[] = [];
for (const [name, path] of [
  ["newsroom index", "/v1/public/newsroom"],
  ["one item", itemPath],
] as const) {
  const sample = await fetch(base + path);
  const bytes = new Uint8Array(await sample.arrayBuffer());
  const sampleHeaders = new Headers(sample.headers);
  const bare = Bun.serve({ port: 0, fetch: () => new Response(bytes, { headers: sampleHeaders }) });
  const paired = await runPaired(
    getter(`http://localhost:${bare.port}${path}`),
    getter(base + path),
    {
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
    },
  );
  const bareResult = paired.baseline;
  const gatewayResult = paired.subject;
  await bare.stop(true);
  const row = (label: string, r: Result) =>
    `| ${label} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`;
  rows.push(row(`bare Bun.serve, ${name} (${bytes.length} bytes)`, bareResult));
  rows.push(row(`${name} via embedded gateway`, gatewayResult));
  ratios.push(`${name}: ${((gatewayResult.rps / bareResult.rps) * 100).toFixed(1)}% of bare`);
}
await server.stop(true);

// Keyset cost over 10,000 published items: page 1 against page 40, past the cache.
const bigId = newId();
await db
  .insert(organizations)
  .values({ id: bigId, slug: "bench-big", name: "Bench", newsroomRunning: true });
await insertStories(db, bigId, syntheticStories(BIG, 99, "big-"), () => "published");
const newsroom = {
  organizationId: bigId,
  ownerId: bigId,
  itemBase: "https://bench.example/newsroom",
  topicBase: "https://bench.example/topics",
};
let cursor: string | null = null;
for (let page = 1; page < 40; page++) {
  const body = await newsroomIndex(db, newsroom, {
    after: cursor ? decodeCursor(cursor) : undefined,
  });
  cursor = body.next_cursor;
}
const page40 = decodeCursor(cursor!);
const timeReads = async (after: Position | undefined) => {
  const times: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    const body = await newsroomIndex(db, newsroom, { after });
    times.push(performance.now() - start);
    if (body.items.length !== PAGE_SIZE) throw new Error("short page");
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
};
await timeReads(undefined);
const first = await timeReads(undefined);
const fortieth = await timeReads(page40);

await publicRead.stop();
await runtime.close();

console.log(`Public reads, ${CONCURRENCY} connections, ${SECONDS} s each, read cache warm\n`);
console.log("| server | requests/s | p50 ms | p99 ms | non-200 |");
console.log("|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log(`\n${ratios.join("; ")}`);
console.log(`\nKeyset paging over ${BIG} published items (median of 60 database reads)\n`);
console.log("| page | p50 ms |");
console.log("|---|---|");
console.log(`| 1 | ${first.toFixed(2)} |`);
console.log(`| 40 | ${fortieth.toFixed(2)} |`);
console.log(`\nratio page 40 / page 1: ${(fortieth / first).toFixed(2)}`);
process.exit(0);
