/**
 * `npm run bench`: every bench, one after another, each in a process of its own (they start
 * their own servers and stop them). The distributed ones need DATABASE_URL, NATS_URL and
 * REDIS_URL and are skipped, said so, without them. BENCH_SECONDS and BENCH_ROUNDS shorten
 * every wrk bench for a quick check (e.g. BENCH_SECONDS=3 BENCH_ROUNDS=2); BENCH_ONLY names
 * some (comma-separated). The Markdown of each goes to stdout, progress to stderr.
 */
const DISTRIBUTED = ["DATABASE_URL", "NATS_URL", "REDIS_URL"];

const benches: { name: string; distributed?: boolean; args?: string[] }[] = [
  { name: "public-read" },
  { name: "pages" },
  { name: "startup" },
  { name: "gateway-hop" },
  { name: "newsroom-distributed", distributed: true },
  { name: "webhooks", args: process.env.BENCH_ROUNDS ? [process.env.BENCH_ROUNDS] : [] },
  { name: "client-api", distributed: true },
  { name: "webhooks-e2e", distributed: true },
];

const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
const missing = DISTRIBUTED.filter((name) => !process.env[name]);
const failed: string[] = [];
for (const bench of benches) {
  if (only && !only.includes(bench.name)) continue;
  if (bench.distributed && missing.length > 0) {
    console.log(`\n(${bench.name}: skipped, ${missing.join(", ")} not set)\n`);
    continue;
  }
  console.error(`== ${bench.name}`);
  const child = Bun.spawn(
    [process.execPath, `${import.meta.dir}/${bench.name}.bench.ts`, ...(bench.args ?? [])],
    { stdout: "inherit", stderr: "inherit", env: process.env },
  );
  if ((await child.exited) !== 0) failed.push(bench.name);
  console.log("");
}
if (failed.length > 0) {
  console.error(`failed: ${failed.join(", ")}`);
  process.exit(1);
}
