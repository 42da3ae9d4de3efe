/**
 * `npm run docs`: rewrites the generated parts of the documentation from the code: each service
 * README's "## Routes" table (from its app's routes), docs/configuration.md (from the variable
 * declarations) and the forms README's field tables (from the forms' schemas). `--check` writes
 * nothing and fails when a file is not current.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { withFormFieldTables } from "@newsroom/forms/submission/field-tables";
import { CONFIGURATION_MARKERS, configurationSection } from "./configuration-doc.ts";
import { withGeneratedSection } from "./generated-section.ts";
import { ROUTE_MARKERS, routeSection, serviceRoutes } from "./readme-routes.ts";

const ROOT = new URL("../", import.meta.url).pathname;
export const CONFIGURATION_DOC = "docs/configuration.md";
export const FORMS_README = "services/forms/README.md";

/** Each generated file (path from the root) with the text it should have. */
export async function generatedDocs(): Promise<Map<string, string>> {
  const read = (path: string) => readFileSync(`${ROOT}${path}`, "utf8");
  const files = new Map<string, string>();
  const put = (path: string, text: string | null) => {
    if (text === null) throw new Error(`${path} lacks its generated section's markers`);
    files.set(path, text);
  };
  for (const service of await serviceRoutes()) {
    const current = files.get(service.readme) ?? read(service.readme);
    put(service.readme, withGeneratedSection(current, ROUTE_MARKERS, routeSection(service)));
  }
  const configuration = read(CONFIGURATION_DOC);
  put(
    CONFIGURATION_DOC,
    withGeneratedSection(configuration, CONFIGURATION_MARKERS, configurationSection(configuration)),
  );
  put(FORMS_README, withFormFieldTables(files.get(FORMS_README) ?? read(FORMS_README)));
  return files;
}

if (import.meta.main) {
  const check = process.argv.includes("--check");
  const stale: string[] = [];
  for (const [path, text] of await generatedDocs()) {
    if (readFileSync(`${ROOT}${path}`, "utf8") === text) continue;
    stale.push(path);
    if (!check) writeFileSync(`${ROOT}${path}`, text);
  }
  if (check && stale.length > 0) {
    console.error(`not current: ${stale.join(", ")}; run \`npm run docs\``);
    process.exit(1);
  }
  console.log(stale.length === 0 ? "documentation is current" : `rewrote ${stale.join(", ")}`);
  process.exit(0);
}
