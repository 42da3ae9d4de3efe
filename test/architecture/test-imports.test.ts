import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { SERVICE_FOLDERS } from "../support/services.ts";

/**
 * A service's tests import only their own service and `shared/`: the data a service reads is
 * built with shared test builders (shared/src/testing/builders.ts) or the service's own, and a flow
 * across services is tested in the top-level test/ folder. A file under `scripts/` or
 * `test/support/` imports for whoever imports it: the scan follows such files (and theirs in
 * turn), so starting the embedded composition (scripts/embedded.ts) imports every service.
 */
const root = resolve(new URL("../../", import.meta.url).pathname);
const SERVICES = SERVICE_FOLDERS;

function testFiles(folder: string): string[] {
  return readdirSync(join(root, folder, "test"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Every module specifier a file names: static and type imports, re-exports and `import(...)`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^"'`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

/** The service a specifier (from a file at `file`, relative to the root) points into, if any. */
function serviceOf(specifier: string, file: string): string | undefined {
  const packageName = /^@newsroom\/([^/]+)/.exec(specifier)?.[1];
  if (packageName) return SERVICES.some((s) => s.name === packageName) ? packageName : undefined;
  if (!specifier.startsWith(".")) return undefined;
  const target = relative(root, resolve(root, dirname(file), specifier));
  return SERVICES.find((s) => target === s.folder || target.startsWith(`${s.folder}/`))?.name;
}

/** Folders whose files are read through: importing one imports what it imports. */
const FOLLOWED = ["scripts/", "test/support/"];

/** The file under a followed folder that a relative specifier names, if any. */
function followedFile(specifier: string, file: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = relative(root, resolve(root, dirname(file), specifier));
  if (!FOLLOWED.some((folder) => target.startsWith(folder))) return undefined;
  return [target, `${target}.ts`].find((candidate) => existsSync(join(root, candidate)));
}

/** Every service a file imports, directly or through the followed files it imports. */
function servicesImported(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  for (const specifier of specifiers(readFileSync(join(root, file), "utf8"))) {
    const service = serviceOf(specifier, file);
    if (service !== undefined) found.add(service);
    const followed = followedFile(specifier, file);
    if (followed) for (const reached of servicesImported(followed, seen)) found.add(reached);
  }
  return found;
}

function otherServicesImported(file: string, own: string): string[] {
  return [...servicesImported(file)].filter((service) => service !== own).sort();
}

describe("service tests import only their own service and shared/", () => {
  const importing = new Map<string, string[]>();
  for (const service of SERVICES) {
    for (const file of testFiles(service.folder)) {
      const others = otherServicesImported(file, service.name);
      if (others.length > 0) importing.set(file, others);
    }
  }

  test("the scan sees imports by package name and by relative path", () => {
    const file = "services/forms/test/x.test.ts";
    expect(serviceOf("@newsroom/workspace/stories/service", file)).toBe("workspace");
    expect(serviceOf("@newsroom/shared/db/schema", file)).toBeUndefined();
    expect(serviceOf("../../workspace/src/app.ts", file)).toBe("workspace");
    expect(serviceOf("../../../gateway/src/app.ts", file)).toBe("gateway");
    expect(serviceOf("../src/app.ts", file)).toBe("forms");
    expect(serviceOf("../../../shared/src/ids.ts", file)).toBeUndefined();
    expect(
      specifiers(
        'import { a } from "x";\nimport type { B } from "y";\nexport * from "z";\nawait import("w");\nimport "v";',
      ).sort(),
    ).toEqual(["v", "w", "x", "y", "z"]);
  });

  test("the scan reads through scripts/ and test/support/ to the services they import", () => {
    expect(servicesImported("scripts/embedded.ts")).toEqual(
      new Set(SERVICES.map((service) => service.name)),
    );
    expect(
      followedFile("../../../../scripts/embedded.ts", "services/forms/test/support/x.ts"),
    ).toBe("scripts/embedded.ts");
    expect(followedFile("../../../test/support/cluster", "services/forms/test/x.test.ts")).toBe(
      "test/support/cluster.ts",
    );
    expect(followedFile("./support/x.ts", "services/forms/test/x.test.ts")).toBeUndefined();
    // test/support/cluster.ts names scripts/cluster.ts, which seeds through the workspace.
    expect(servicesImported("test/support/cluster.ts").has("workspace")).toBe(true);
  });

  test("no service test imports another service", () => {
    const importingOthers = [...importing].map(([file, others]) => `${file}: ${others.join(", ")}`);
    expect(importingOthers).toEqual([]);
  });
});
