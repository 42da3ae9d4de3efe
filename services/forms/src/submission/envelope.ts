import type { FieldError } from "@newsroom/shared/errors";
import { type Static, type TObject, Type as t } from "@sinclair/typebox";
import type { BodyKind } from "../request/body.ts";
import { check, rulesFor } from "./rules.ts";

/**
 * The envelope every form body carries: `submission_id` (UUID, the idempotency key),
 * `started_at` (milliseconds since the epoch when the form was shown) and the honeypot `fax`.
 */
export const EnvelopeFields = {
  submission_id: t.String({ format: "uuid", description: "idempotency key of the submission" }),
  started_at: t.Integer({
    minimum: 0,
    description: "milliseconds since the epoch when the form was shown",
  }),
  fax: t.Optional(t.String({ honeypot: true, description: "honeypot: leave absent or empty" })),
};

/**
 * The envelope of a form on a page served from a cache (the status page): one rendering is seen
 * by many visitors, so it cannot carry one visitor's `submission_id` or `started_at`. Both may be
 * sent; without `submission_id` each post is a submission of its own, without `started_at` the
 * timing check is skipped. The honeypot and the form's own throttles still apply.
 */
export const OptionalEnvelopeFields = {
  submission_id: t.Optional(EnvelopeFields.submission_id),
  started_at: t.Optional(EnvelopeFields.started_at),
  fax: EnvelopeFields.fax,
};

export interface Envelope {
  submission_id: string;
  started_at: number;
  /** Whatever was in the honeypot: a person leaves it empty. */
  fax?: unknown;
}

const rulesCache = new WeakMap<TObject, ReturnType<typeof rulesFor>>();

/** Checks a body against its schema (fields and envelope): every bad field named at once. */
export function checkSubmission<S extends TObject>(
  schema: S,
  fields: Record<string, unknown>,
  kind: BodyKind,
): { value: Static<S> } | { errors: FieldError[] } {
  let rules = rulesCache.get(schema);
  if (!rules) {
    rules = rulesFor(schema);
    rulesCache.set(schema, rules);
  }
  const result = check(rules, fields, kind);
  if ("errors" in result) return result;
  const fax = Object.hasOwn(fields, "fax") ? fields.fax : undefined;
  return { value: { ...result.value, fax } as Static<S> };
}

const MIN_FILL_MS = 2_000;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Bot screening: a filled honeypot, or a form sent under 2 s after it was shown, shown in the
 * future, or shown over 24 h ago. Such a submission is answered exactly like a real one.
 */
export function looksAutomated(
  envelope: Omit<Envelope, "started_at"> & { started_at?: number },
  now: Date,
): boolean {
  if (!honeypotEmpty(envelope.fax)) return true;
  // A form of a cached page cannot say when it was shown (`OptionalEnvelopeFields`).
  if (envelope.started_at === undefined) return false;
  const elapsed = now.getTime() - envelope.started_at;
  return elapsed < MIN_FILL_MS || elapsed > MAX_AGE_MS;
}

function honeypotEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.every((item) => item === "");
  return false;
}
