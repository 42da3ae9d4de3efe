import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";

/** Every `npm run` script that runs a file with bun names one that exists (`npm run bench` did not). */
const root = new URL("../../", import.meta.url).pathname;
const scripts = JSON.parse(readFileSync(`${root}package.json`, "utf8")).scripts as Record<
  string,
  string
>;

for (const [name, command] of Object.entries(scripts)) {
  const file = /^bun (\S+\.ts)\b/.exec(command)?.[1];
  if (!file) continue;
  test(`npm run ${name}: ${file} exists`, () => {
    expect(existsSync(`${root}${file}`)).toBe(true);
  });
}
