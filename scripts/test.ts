/**
 * The test command: type-check the whole repo, lint and format-check it, then run every test.
 * Extra arguments go to `bun test` (a file name or `-t pattern`).
 */
const extra = process.argv.slice(2);

function run(label: string, command: string[]): void {
  console.log(`\n> ${label}`);
  const result = Bun.spawnSync(command, { stdout: "inherit", stderr: "inherit" });
  if (result.exitCode !== 0) {
    console.error(`\n${label} failed (exit ${result.exitCode})`);
    process.exit(result.exitCode ?? 1);
  }
}

if (extra.length === 0) {
  run("type-check (tsc --noEmit)", ["node_modules/.bin/tsc", "--noEmit"]);
  run("lint and format (biome check)", ["node_modules/.bin/biome", "check", "."]);
  run("typed client from the OpenAPI document (openapi-typescript)", [
    "node_modules/.bin/openapi-typescript",
    "gateway/openapi.json",
    "-o",
    "clients/typescript/api.d.ts",
  ]);
  run("the typed client type-checks", ["node_modules/.bin/tsc", "-p", "clients/typescript"]);
}
run("tests (bun test)", [process.execPath, "test", "--timeout", "60000", ...extra]);
