/**
 * The distributed client API: `GET /v1/stories?limit=25` with a valid key through the gateway
 * (six processes on PostgreSQL, JetStream and Redis), and straight to the client-api process,
 * against a bare Bun.serve in its own process answering the same bytes and headers, wrk in
 * turns. Run: `DATABASE_URL=... NATS_URL=... REDIS_URL=... bun bench/client-api.bench.ts`.
 *
 * One key from one address would meet the gateway's limits (300 a minute per key, 600 per
 * address) within a second and the bench would measure 429s. So wrk spreads its requests over
 * BENCH_KEYS keys (default 2,000, 20 in each of as many organizations: 600,000 requests a minute,
 * twice what the gateway answers in a minute of rounds at 14,000 a second) and over client addresses given in
 * X-Forwarded-For, which the gateway believes from 127.0.0.1 here (TRUSTED_PROXIES): every
 * request is still counted in Redis, as in production; the cost of the limits is measured, not
 * their effect. 429s would show in the non-2xx column.
 */
import {
  BENCH_SECONDS,
  captureAnswer,
  cleanup,
  compareMany,
  cpuSeconds,
  cpuSecondsOfCommand,
  ensureWrk,
  machineBusySeconds,
  methodLine,
  reportMany,
  startBare,
  wrk,
  wrkScript,
} from "./support/external.ts";
import { startDistributed } from "./support/servers.ts";
import { seedOrganization, workspaceCall } from "./support/workspace.ts";

const PATH = "/v1/stories?limit=25";
const KEYS = Number(process.env.BENCH_KEYS ?? 2000);
const KEYS_PER_ORG = 20;

await ensureWrk();
try {
  const cluster = await startDistributed({ TRUSTED_PROXIES: "127.0.0.1" });
  const api = cluster.workspaceApi;
  // An organization holds at most 20 live keys: the keys are spread over organizations alike
  // (25 stories each, so every answer is a full page of about the same size).
  const keys: string[] = [];
  const orgs = Array.from({ length: Math.ceil(KEYS / KEYS_PER_ORG) }, (_, i) => `bench-org-${i}`);
  for (let i = 0; i < orgs.length; i += 4) {
    await Promise.all(
      orgs.slice(i, i + 4).map(async (org) => {
        await seedOrganization(api, org, 25);
        for (let k = 0; k < KEYS_PER_ORG; k++) {
          const key = await workspaceCall(api, "POST", `/orgs/${org}/keys`, {
            environment: "test",
            scopes: ["stories:read"],
            lifetime_days: 30,
          });
          keys.push(key.secret);
        }
      }),
    );
  }
  const script = wrkScript(`local keys = { ${keys.map((k) => `"${k}"`).join(", ")} }
local n = 0
request = function()
  n = n + 1
  local address = "10." .. (math.floor(n / 65536) % 256) .. "." .. (math.floor(n / 256) % 256) .. "." .. (n % 256)
  return wrk.format("GET", nil, {
    ["Authorization"] = "Bearer " .. keys[(n % #keys) + 1],
    ["X-Forwarded-For"] = address,
  })
end`);
  const answer = await captureAnswer(cluster.gateway + PATH, {
    authorization: `Bearer ${keys[0]}`,
  });
  if (answer.status !== 200) throw new Error(`${PATH} answered ${answer.status}`);
  const bare = await startBare(answer);
  const result = await compareMany(
    [
      ["bare Bun.serve, same bytes and headers", bare.url + PATH],
      ["client API through the gateway", cluster.gateway + PATH],
      ["client-api process directly (no gateway)", cluster.clientApi + PATH],
    ],
    { script, label: "client API" },
  );
  // Where the CPU goes: one more round through the gateway and one straight to client-api, the
  // CPU time of each process (and of PostgreSQL's and Redis's) divided by the requests answered.
  const processes = { gateway: cluster.pids.gateway!, "client-api": cluster.pids["client-api"]! };
  const cpuNow = (): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)])),
    PostgreSQL: cpuSecondsOfCommand("postgres"),
    Redis: cpuSecondsOfCommand("redis-server"),
    "whole machine": machineBusySeconds(),
  });
  const cpuRows: string[] = [];
  for (const [name, url] of [
    ["through the gateway", cluster.gateway + PATH],
    ["straight to client-api", cluster.clientApi + PATH],
  ] as const) {
    const before = cpuNow();
    const run = await wrk(url, { seconds: BENCH_SECONDS, script });
    const after = cpuNow();
    const perRequest = (key: string) =>
      (((after[key]! - before[key]!) * 1e6) / run.requests).toFixed(0);
    cpuRows.push(
      `| ${name} | ${run.rps.toFixed(0)} | ${run.non2xx + run.socketErrors} | ${Object.keys(before)
        .map((key) => perRequest(key))
        .join(" | ")} |`,
    );
  }
  console.log(`${reportMany(`Distributed, GET ${PATH} (${answer.bytes} bytes, ${keys.length} keys in ${orgs.length} organizations)`, result)}

CPU µs per request (one more round of each; "whole machine" includes wrk):

| path | requests/s | non-2xx or errors | ${Object.keys(cpuNow()).join(" | ")} |
|---|---|---|---|---|---|---|---|
${cpuRows.join("\n")}

${methodLine()}`);
} finally {
  await cleanup();
}
process.exit(0);
