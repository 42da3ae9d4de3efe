import { type FieldError, invalidParameters } from "@newsroom/shared/errors";
import { Kind, type Static, type TObject, type TProperties } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { UuidParam } from "./model.ts";

const DIGITS = /^[0-9]{1,6}$/;

/**
 * Reads a route's query parameters against its TypeBox object schema and reports every bad one at
 * once (400 invalid_parameters, `error.fields` naming each). Integers must be plain digits; a
 * parameter given twice is refused; parameters the schema does not name are ignored.
 */
export function readQuery<S extends TObject<TProperties>>(
  query: URLSearchParams,
  schema: S,
  explain: Partial<Record<keyof S["properties"], (given: string) => string>> = {},
): Static<S> {
  const out: Record<string, unknown> = {};
  const fields: FieldError[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const given = query.getAll(name);
    if (given.length === 0) continue;
    if (given.length > 1) {
      fields.push({ field: name, reason: "repeated", message: "Give this parameter once." });
      continue;
    }
    const text = given[0]!;
    let value: unknown = text;
    if (property[Kind] === "Integer") {
      if (!DIGITS.test(text)) {
        fields.push({ field: name, reason: "invalid", message: "Expected an integer." });
        continue;
      }
      value = Number(text);
    }
    // Check first: cheap, and the usual case; the error is looked for only when there is one.
    const error = Value.Check(property, value) ? undefined : Value.Errors(property, value).First();
    if (error) {
      const message = explain[name as keyof S["properties"]]?.(text) ?? error.message;
      fields.push({ field: name, reason: "invalid", message });
      continue;
    }
    out[name] = value;
  }
  if (fields.length > 0) throw invalidParameters(fields);
  return out as Static<S>;
}

/** One more bad parameter found after the shape checks (a cursor that does not verify). */
export function badParameter(field: string, message: string) {
  return invalidParameters([{ field, reason: "invalid", message }]);
}

/** A UUID path or query parameter, or 400 invalid_parameters naming it. */
export function readUuid(field: string, value: string): string {
  if (!Value.Check(UuidParam, value)) {
    throw invalidParameters([{ field, reason: "invalid", message: "Expected a UUID." }]);
  }
  return value.toLowerCase();
}
