import { describe, expect, test } from "bun:test";
import { CAREER_AREAS } from "../src/careers/model.ts";
import {
  CONTACT_AUDIENCES,
  CONTACT_INTENTS,
  CONTACT_TIMELINES,
  CONTACT_TOPICS,
} from "../src/contact/model.ts";
import { casesFor, type FieldSpec, withField } from "./support/field-cases.ts";
import { validCareer, validContact } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

/** The spec's field tables, written out again here so the test does not read the code's. */
const CONTACT_TABLE: FieldSpec[] = [
  { field: "intent", kind: "enum", values: CONTACT_INTENTS, required: true },
  { field: "audience", kind: "enum", values: CONTACT_AUDIENCES, required: true },
  { field: "name", kind: "text", min: 1, max: 120, required: true },
  { field: "email", kind: "email" },
  { field: "organization", kind: "text", min: 1, max: 160, required: false },
  { field: "role", kind: "text", min: 1, max: 120, required: false },
  { field: "website", kind: "text", min: 1, max: 300, required: false },
  { field: "timeline", kind: "enum", values: CONTACT_TIMELINES, required: false },
  { field: "topic", kind: "enum", values: CONTACT_TOPICS, required: false },
  { field: "message", kind: "text", min: 10, max: 4000, required: true },
  { field: "consent", kind: "consent" },
];

const CAREER_TABLE: FieldSpec[] = [
  { field: "name", kind: "text", min: 1, max: 120, required: true },
  { field: "email", kind: "email" },
  { field: "location", kind: "text", min: 2, max: 120, required: true },
  { field: "profile", kind: "text", min: 1, max: 300, required: true },
  { field: "areas", kind: "enum-array", values: CAREER_AREAS, min: 1, max: 7 },
  { field: "years", kind: "integer", min: 0, max: 60, required: false },
  { field: "note", kind: "text", min: 20, max: 3000, required: true },
  { field: "consent", kind: "consent" },
];

const { ses, forms } = formsWorld();

const FORMS = [
  { path: "/v1/public/contact", table: CONTACT_TABLE, valid: validContact },
  { path: "/v1/public/careers", table: CAREER_TABLE, valid: validCareer },
] as const;

for (const form of FORMS) {
  for (const as of ["json", "form", "multipart"] as const) {
    describe(`${form.path} field rules (${as})`, () => {
      const kind = as === "json" ? "json" : "form";
      const cases = form.table.flatMap(casesFor).filter((c) => !c.only || c.only === kind);
      for (const c of cases) {
        test(c.name, async () => {
          const body = withField(form.valid(), c.field, c.value);
          const response = await forms.post(form.path, body, { as });
          const answer = (await response.json()) as {
            error?: { code: string; fields: { field: string; reason: string }[] };
          };
          if (c.accept) {
            expect({ status: response.status, answer }).toMatchObject({ status: 202 });
            return;
          }
          expect(response.status).toBe(422);
          expect(answer.error?.code).toBe("validation_failed");
          expect(answer.error?.fields.map(({ field, reason }) => ({ field, reason }))).toEqual([
            { field: c.field, reason: c.reason! },
          ]);
        });
      }
    });
  }
}

describe("every bad field at once", () => {
  test("an empty contact body names each required field of the table and the envelope", async () => {
    const response = await forms.post("/v1/public/contact", {});
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as {
      error: { type: string; fields: { field: string; reason: string; message: string }[] };
    };
    expect(error.type).toBe("invalid_request");
    expect(error.fields.map((f) => f.field).sort()).toEqual(
      [
        "intent",
        "audience",
        "name",
        "email",
        "message",
        "consent",
        "submission_id",
        "started_at",
      ].sort(),
    );
    expect(error.fields.every((f) => f.reason === "required" && f.message.length > 0)).toBe(true);
  });

  test("several bad career fields are listed together with their reasons", async () => {
    const body = validCareer({
      name: "",
      location: "X",
      areas: ["astrology"],
      years: 61,
      note: "too short",
      consent: false,
      submission_id: "not-a-uuid",
    });
    const response = await forms.post("/v1/public/careers", body);
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as {
      error: { fields: { field: string; reason: string }[] };
    };
    expect(error.fields.map(({ field, reason }) => ({ field, reason }))).toEqual([
      { field: "name", reason: "required" },
      { field: "location", reason: "too_short" },
      { field: "areas", reason: "invalid_choice" },
      { field: "years", reason: "out_of_range" },
      { field: "note", reason: "too_short" },
      { field: "consent", reason: "must_be_true" },
      { field: "submission_id", reason: "invalid_format" },
    ]);
  });

  test("nothing is sent for a rejected submission", async () => {
    const body = validContact({ message: "short" });
    expect((await forms.post("/v1/public/contact", body)).status).toBe(422);
    expect(await ses.to(body.email)).toHaveLength(0);
  });
});
