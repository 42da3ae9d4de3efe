/**
 * Embedded public reads: `GET /v1/public/newsroom` and one item from `npm start` (its own
 * process, PGlite, demo data, answers warm at the gateway) against a bare Bun.serve in its own
 * process answering the same bytes and headers, wrk in turns. Run:
 * `bun bench/public-read.bench.ts` (BENCH_SECONDS, BENCH_ROUNDS for a quick check).
 */
import {
  captureAnswer,
  cleanup,
  compare,
  ensureWrk,
  methodLine,
  report,
  startBare,
} from "./support/external.ts";
import { startEmbeddedServer } from "./support/servers.ts";

await ensureWrk();
try {
  const server = await startEmbeddedServer();
  const index = await (await fetch(`${server.url}/v1/public/newsroom`)).json();
  const slug = (index.items ?? index.data)?.[0]?.slug;
  if (!slug) throw new Error("the demo newsroom has no item");
  const sections: string[] = [];
  for (const [name, path] of [
    ["newsroom index", "/v1/public/newsroom"],
    ["one item", `/v1/public/newsroom/${slug}`],
  ] as const) {
    const answer = await captureAnswer(server.url + path);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    const bare = await startBare(answer);
    const result = await compare(bare.url + path, server.url + path, { label: name });
    sections.push(
      report(
        `Embedded, GET ${path.replace(slug, "{slug}")} (${answer.bytes} bytes)`,
        [
          ["bare Bun.serve, same bytes and headers", result.bare],
          ["embedded service (npm start)", result.subject],
        ],
        result,
      ),
    );
  }
  console.log(`${sections.join("\n\n")}\n\n${methodLine()}`);
} finally {
  await cleanup();
}
process.exit(0);
