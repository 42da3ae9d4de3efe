import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";
import { oneOf } from "../submission/rules.ts";

export const CAREER_AREAS = [
  "engineering",
  "design",
  "content-video",
  "research-editorial",
  "partnerships-sales",
  "operations",
  "other",
] as const;

/** CareerApplication with the submission envelope. A profile link replaces file uploads. */
export const CareerApplicationIn = t.Object({
  name: t.String({ minLength: 1, maxLength: 120 }),
  email: t.String({ format: "email", maxLength: 254 }),
  location: t.String({ minLength: 2, maxLength: 120 }),
  profile: t.String({ minLength: 1, maxLength: 300 }),
  areas: t.Array(oneOf(CAREER_AREAS), { minItems: 1, maxItems: 7, uniqueItems: true }),
  years: t.Optional(t.Integer({ minimum: 0, maximum: 60 })),
  note: t.String({ minLength: 20, maxLength: 3000 }),
  consent: t.Literal(true),
  ...EnvelopeFields,
});
export type CareerApplicationIn = Static<typeof CareerApplicationIn>;
