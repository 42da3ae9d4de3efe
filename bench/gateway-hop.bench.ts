/**
 * The gateway's hop alone: a bare upstream (its own process, answering a newsroom-sized JSON
 * answer from memory) reached directly, through a bare Bun proxy (a `fetch` pass-through in its
 * own process), and through the distributed gateway (`gateway/src/main.ts`, memory rate limits,
 * public reads unlimited), wrk in turns. Run: `bun bench/gateway-hop.bench.ts`.
 */
import { freePort } from "@newsroom/shared/testing/ports";
import {
  cleanup,
  compareMany,
  ensureWrk,
  loadLine,
  median,
  methodLine,
  SERVER_ROOT,
  spawnProcess,
  startBare,
  startBareProxy,
  waitFor200,
} from "./support/external.ts";
import { tracingEnv } from "./support/servers.ts";

const PATH = "/v1/public/newsroom";

await ensureWrk();
try {
  const items = Array.from({ length: 25 }, (_, i) => ({
    id: `sto_${String(i).padStart(20, "0")}`,
    slug: `a-story-of-the-newsroom-${i}`,
    title: "A story of the newsroom, long enough to look like a real title",
    summary: "A summary of the story in a sentence or two, as the newsroom index shows it.",
    published_at: "2026-11-22T12:00:00.000Z",
  }));
  const body = JSON.stringify({ items, next_cursor: null });
  const upstream = await startBare({
    status: 200,
    headers: [
      ["content-type", "application/json"],
      ["cache-control", "public, max-age=60, stale-while-revalidate=300"],
      ["etag", '"bench"'],
    ],
    body: Buffer.from(body).toString("base64"),
  });
  const proxy = await startBareProxy(upstream.url);
  const gatewayPort = await freePort();
  spawnProcess([process.execPath, `${SERVER_ROOT}gateway/src/main.ts`], {
    PATH: process.env.PATH,
    PORT: String(gatewayPort),
    PUBLIC_READ_URL: upstream.url,
    PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000000",
    LOG_LEVEL: "error",
    ...tracingEnv(),
  });
  const gateway = `http://127.0.0.1:${gatewayPort}`;
  await waitFor200(gateway + PATH, 30_000);
  const result = await compareMany(
    [
      ["bare upstream, directly", upstream.url + PATH],
      ["bare Bun proxy (fetch pass-through) in front of it", proxy.url + PATH],
      ["gateway in front of it", gateway + PATH],
    ],
    { label: "hop" },
  );
  const [, proxied, gated] = result.rows;
  console.log(`### The gateway hop alone (GET ${PATH}, ${body.length} bytes)

| server | requests/s (median) | p50 ms | p99 ms | non-2xx or errors | ratio to the bare upstream |
|---|---|---|---|---|---|
${result.rows
  .map(
    ([name, s, ratio]) =>
      `| ${name} | ${s.rps.toFixed(0)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.non2xx} | ${ratio.toFixed(3)} |`,
  )
  .join("\n")}

Gateway against the bare proxy: **${median(gated![1].rounds.map((run, i) => run.rps / proxied![1].rounds[i]!.rps)).toFixed(3)}** (median of the per-round ratios); load average ${loadLine(result.loadBefore)} before, ${loadLine(result.loadAfter)} after.

${methodLine()}`);
} finally {
  await cleanup();
}
process.exit(0);
