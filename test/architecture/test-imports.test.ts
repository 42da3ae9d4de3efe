import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { SERVICE_FOLDERS } from "../support/services.ts";

/**
 * A service's tests import only their own service and `shared/`: the data a service reads is
 * built with shared test builders (shared/src/testing/builders.ts) or the service's own, and a flow
 * across services is tested in the top-level test/ folder.
 */
const root = resolve(new URL("../../", import.meta.url).pathname);
const SERVICES = SERVICE_FOLDERS;

/**
 * Test files that still import another service. This list only shrinks: the test fails when a
 * listed file no longer imports another service (take it off) and when any other file starts to.
 */
const STILL_IMPORTING = new Set<string>([
  "gateway/test/rate-limits.test.ts",
  "services/client-api/test/feeds.happy.test.ts",
  "services/client-api/test/pagination.happy.test.ts",
  "services/client-api/test/support/embedded.ts",
  "services/forms/test/body-limit.security.test.ts",
  "services/forms/test/digest-send.error.test.ts",
  "services/forms/test/digest-send.happy.test.ts",
  "services/forms/test/support/digest.ts",
  "services/public-read/test/asset-urls.security.test.ts",
  "services/public-read/test/cache.happy.test.ts",
  "services/public-read/test/cdn-purge.happy.test.ts",
  "services/public-read/test/documents.happy.test.ts",
  "services/public-read/test/pages-cache.happy.test.ts",
  "services/public-read/test/purge-events.happy.test.ts",
  "services/public-read/test/support/world.ts",
  "services/webhooks/test/batches.happy.test.ts",
  "services/webhooks/test/bus-restart.error.test.ts",
  "services/webhooks/test/ordering.error.test.ts",
  "services/workspace/test/story-body.error.test.ts",
  "services/workspace/test/support/web-app.ts",
  "services/workspace/test/web-gateway.security.test.ts",
]);

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

function otherServicesImported(file: string, own: string): string[] {
  const source = readFileSync(join(root, file), "utf8");
  const others = specifiers(source).filter((specifier) => {
    const service = serviceOf(specifier, file);
    return service !== undefined && service !== own;
  });
  return [...new Set(others)].sort();
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

  test("no test file outside the list imports another service", () => {
    const unlisted = [...importing]
      .filter(([file]) => !STILL_IMPORTING.has(file))
      .map(([file, others]) => `${file}: ${others.join(", ")}`);
    expect(unlisted).toEqual([]);
  });

  test("every listed file still imports another service (else take it off the list)", () => {
    const trimmable = [...STILL_IMPORTING].filter((file) => !importing.has(file)).sort();
    expect(trimmable).toEqual([]);
  });
});
