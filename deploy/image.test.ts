import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse } from "yaml";

/**
 * The container image, checked without building it: the Dockerfile must carry every folder of
 * installed packages, so each service resolves the versions the lockfile gives it, and no
 * development-only package.
 */
const root = new URL("../", import.meta.url).pathname;
const read = (path: string) => readFileSync(root + path, "utf8");
const pkg = JSON.parse(read("package.json")) as {
  workspaces: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The workspace folders, with `services/*` expanded. */
const workspaces = pkg.workspaces.flatMap((pattern) =>
  pattern.endsWith("/*")
    ? readdirSync(root + pattern.slice(0, -2), { withFileTypes: true })
        .filter(
          (entry) =>
            entry.isDirectory() &&
            existsSync(`${root}${pattern.slice(0, -1)}${entry.name}/package.json`),
        )
        .map((entry) => `${pattern.slice(0, -1)}${entry.name}`)
    : [pattern],
);

/** The Dockerfile's stages: the instructions of each, by name (the last one as "final"). */
function stages(): Map<string, string[]> {
  const lines = read("Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const found = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of lines) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) {
      current = [];
      found.set(from[1] ?? "final", current);
    } else current.push(line);
  }
  return found;
}

/** What the final stage copies from the install stage: the source paths, normalized. */
function copiedFromDeps(): string[] {
  const final = stages().get("final") ?? [];
  return final
    .filter((line) => /^COPY\s+.*--from=deps\b/i.test(line))
    .map((line) => {
      const args = line.split(/\s+/).filter((arg) => !arg.startsWith("--"));
      return args[1]!.replace(/\/+$/, "");
    });
}

function isCopied(folder: string): boolean {
  return copiedFromDeps().some(
    (source) =>
      source === "/app" || `/app/${folder}` === source || `/app/${folder}`.startsWith(`${source}/`),
  );
}

describe("Dockerfile", () => {
  test("copies every folder of installed packages: the root's and each workspace's", () => {
    expect(isCopied("node_modules")).toBe(true);
    const nested = workspaces.filter((folder) => existsSync(`${root}${folder}/node_modules`));
    // The webhooks service has its own ipaddr.js: at least that folder must be there.
    expect(nested).toContain("services/webhooks");
    for (const folder of nested)
      expect(`${folder}/node_modules ${isCopied(`${folder}/node_modules`)}`).toBe(
        `${folder}/node_modules true`,
      );
  });

  test("installs from the lockfile without devDependencies, each workspace's package.json first", () => {
    const deps = stages().get("deps") ?? [];
    expect(deps.some((line) => /^RUN\s+npm ci\b.*--omit=dev/.test(line))).toBe(true);
    for (const folder of workspaces) {
      expect(deps).toContain(`COPY ${folder}/package.json ${folder}/`);
    }
  });

  test("applies the project's patches to the installed packages, after the install", () => {
    const deps = stages().get("deps") ?? [];
    const install = deps.findIndex((line) => /^RUN\s+npm ci\b/.test(line));
    const copied = deps.indexOf("COPY patches patches");
    const applied = deps.findIndex((line) => /^RUN\s+npx patch-package\b/.test(line));
    expect(copied).toBeGreaterThan(install);
    expect(applied).toBeGreaterThan(copied);
    // A production install leaves out devDependencies: the tool must be a dependency.
    expect(pkg.dependencies["patch-package"]).toBeDefined();
    expect(readdirSync(`${root}patches`).length).toBeGreaterThan(0);
  });

  test("compose.yaml runs the SES emulator from its own stage, not the services' image", () => {
    const compose = parse(read("compose.yaml"), { merge: true });
    expect(compose.services.ses.build).toEqual({ context: ".", target: "ses-emulator" });
    expect(stages().has("ses-emulator")).toBe(true);
    // The services' image is the last stage: the one `build: .` gives.
    expect([...stages().keys()].at(-1)).toBe("final");
  });

  test("never takes a node_modules folder from the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((line) => line.trim());
    expect(ignored).toContain("**/node_modules");
  });
});

describe("packages", () => {
  test("the webhooks service resolves ipaddr.js 2.x (its SSRF guard needs it)", () => {
    const require = createRequire(`${root}services/webhooks/package.json`);
    const manifest = require("ipaddr.js/package.json") as { version: string };
    expect(manifest.version).toMatch(/^2\./);
  });

  test("the SES emulator is a devDependency, and no service imports a devDependency", () => {
    expect(pkg.dependencies["aws-ses-v2-local"]).toBeUndefined();
    expect(pkg.devDependencies["aws-ses-v2-local"]).toBeDefined();
    const devOnly = new Set(Object.keys(pkg.devDependencies));
    const files = ["{shared,gateway}/src/**/*.ts", "services/*/src/**/*.ts"].flatMap((pattern) => [
      ...new Bun.Glob(pattern).scanSync({ cwd: root }),
    ]);
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      if (file.startsWith("shared/src/testing/")) continue; // test helpers, never imported by a service
      const source = read(file);
      for (const [, specifier] of source.matchAll(/(?:from|import\()\s*"([^"./][^"]*)"/g)) {
        const name = specifier!.startsWith("@")
          ? specifier!.split("/").slice(0, 2).join("/")
          : specifier!.split("/")[0]!;
        expect(`${file} imports ${name}: ${devOnly.has(name) ? "dev only" : "ok"}`).toBe(
          `${file} imports ${name}: ok`,
        );
      }
    }
  });
});
