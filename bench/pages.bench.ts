/**
 * Newsroom pages: one item page (`GET /newsroom/{slug}`, HTML) from `npm start` (its own
 * process, the gateway and public reads, PGlite, demo data, answers warm at the gateway)
 * against a bare Bun.serve in its own process answering the same bytes and headers, wrk in
 * turns; and in the same run the JSON item route (`GET /v1/public/newsroom/{slug}`) the same
 * way, whose ratio the page's should reach. Run: `bun bench/pages.bench.ts` (BENCH_SECONDS,
 * BENCH_ROUNDS for a quick check).
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
  const slug = index.items?.[0]?.slug;
  if (!slug) throw new Error("the demo newsroom has no item");
  const sections: string[] = [];
  const ratios: Record<string, number> = {};
  for (const [name, path] of [
    ["item page", `/newsroom/${slug}`],
    ["JSON item", `/v1/public/newsroom/${slug}`],
  ] as const) {
    const answer = await captureAnswer(server.url + path);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    const bare = await startBare(answer);
    const result = await compare(bare.url + path, server.url + path, { label: name });
    ratios[name] = result.ratio;
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
  const page = ratios["item page"]!;
  const json = ratios["JSON item"]!;
  sections.push(
    `Item page ${(page * 100).toFixed(1)}% of bare, JSON item ${(json * 100).toFixed(1)}%: target (the page at least the JSON route's ratio) ${page >= json ? "met" : "not met"}.`,
  );
  console.log(`${sections.join("\n\n")}\n\n${methodLine()}`);
} finally {
  await cleanup();
}
process.exit(0);
