import { describe, expect, test } from "bun:test";

/**
 * Node only runs npm here (Bun runs the service): `npm ci` on the lowest Node that package.json
 * states must install without an EBADENGINE warning, and the machine's Node (CI's) must be
 * within that range.
 */
const root = new URL("../../", import.meta.url).pathname;
const manifest = await Bun.file(`${root}package.json`).json();
const lock = await Bun.file(`${root}package-lock.json`).json();

/** `>=20.19` gives 20.19.0. */
function lowestNode(range: string): string {
  const match = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`engines.node should be a plain lower bound, got ${range}`);
  return `${match[1]}.${match[2]}.${match[3] ?? 0}`;
}

describe("supported Node versions", () => {
  const lowest = lowestNode(manifest.engines.node);

  test("every installed package accepts the lowest stated Node", () => {
    const refusing = Object.entries(
      lock.packages as Record<string, { engines?: { node?: string } }>,
    )
      .filter(
        ([, entry]) => entry.engines?.node && !Bun.semver.satisfies(lowest, entry.engines.node),
      )
      .map(([name, entry]) => `${name} wants node ${entry.engines?.node}`);
    expect(refusing).toEqual([]);
  });

  test("the machine's Node is within the stated range", () => {
    const node = Bun.which("node");
    if (!node) return;
    const version = Bun.spawnSync([node, "--version"]).stdout.toString().trim().replace(/^v/, "");
    expect(Bun.semver.satisfies(version, manifest.engines.node)).toBe(true);
  });
});
