/**
 * `bun scripts/readme-form-fields.ts`: rewrites the forms README's tables of form fields from the
 * forms' TypeBox schemas. `--check` only reports whether that copy is current.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { withFormFieldTables } from "@newsroom/forms/submission/field-tables";

const README = new URL("../services/forms/README.md", import.meta.url).pathname;
const current = readFileSync(README, "utf8");
const next = withFormFieldTables(current);
if (next === null) {
  console.error("services/forms/README.md lacks the form-field markers");
  process.exit(1);
}
if (process.argv.includes("--check")) {
  if (next !== current) {
    console.error(
      "services/forms/README.md's form fields are out of date: bun scripts/readme-form-fields.ts",
    );
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(README, next);
  console.log("services/forms/README.md: form fields rewritten");
}
