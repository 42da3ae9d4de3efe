import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";
import { oneOf } from "../submission/rules.ts";

export const CONTACT_INTENTS = [
  "authority-programs",
  "content-engine",
  "digital-twins",
  "platforms",
  "websites",
  "partnership",
  "press",
  "other",
] as const;
export const CONTACT_AUDIENCES = ["organization", "professional", "individual"] as const;
export const CONTACT_TIMELINES = ["now", "quarter", "later", "exploring"] as const;
export const CONTACT_TOPICS = [
  "project",
  "programme",
  "distribution",
  "custody",
  "newsroom",
  "security",
  "terms",
] as const;

/** ContactEnquiry with the submission envelope. Lengths are in characters. */
export const ContactIn = t.Object({
  intent: oneOf(CONTACT_INTENTS),
  audience: oneOf(CONTACT_AUDIENCES),
  name: t.String({ minLength: 1, maxLength: 120 }),
  email: t.String({ format: "email", maxLength: 254 }),
  organization: t.Optional(t.String({ maxLength: 160 })),
  role: t.Optional(t.String({ maxLength: 120 })),
  website: t.Optional(t.String({ maxLength: 300 })),
  timeline: t.Optional(oneOf(CONTACT_TIMELINES)),
  topic: t.Optional(oneOf(CONTACT_TOPICS)),
  message: t.String({ minLength: 10, maxLength: 4000 }),
  consent: t.Literal(true),
  ...EnvelopeFields,
});
export type ContactIn = Static<typeof ContactIn>;
