import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CAREER_AREAS } from "../src/careers/model.ts";
import {
  CONTACT_AUDIENCES,
  CONTACT_INTENTS,
  CONTACT_TIMELINES,
  CONTACT_TOPICS,
} from "../src/contact/model.ts";
import { FORMS, formFieldTables, withFormFieldTables } from "../src/submission/field-tables.ts";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The README lists each form's fields and allowed values, generated from the schemas. */
describe("README form fields", () => {
  test("the README's copy is the one the schemas generate (bun scripts/readme-form-fields.ts)", () => {
    expect(withFormFieldTables(README)).toBe(README);
  });

  test("every field of every form and every allowed value is listed", () => {
    const tables = formFieldTables();
    for (const form of FORMS) {
      expect(tables).toContain(`**${form.name}**`);
      for (const field of Object.keys(form.schema.properties)) {
        if (["submission_id", "started_at", "fax"].includes(field)) continue;
        expect(tables).toContain(`| \`${field}\` |`);
      }
    }
    for (const value of [
      ...CONTACT_INTENTS,
      ...CONTACT_AUDIENCES,
      ...CONTACT_TIMELINES,
      ...CONTACT_TOPICS,
      ...CAREER_AREAS,
    ]) {
      expect(tables).toContain(`\`${value}\``);
    }
    expect(tables).not.toContain("spec's table");
  });
});
