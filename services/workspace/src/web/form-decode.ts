import { explanationOf } from "@newsroom/shared/parameter-schemas";
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { FormFields } from "./kit.ts";

/** What a form post became: the value the schema accepts, or the fields it refused. */
export type DecodedForm<S extends TObject> =
  | { ok: true; value: Static<S>; given: Record<string, unknown> }
  | { ok: false; errors: Record<string, string>; given: Record<string, unknown> };

export interface DecodeOptions<S extends TObject> {
  /**
   * The page's wording of a refused field; without it, the schema's own (`explained`), else
   * the validator's message.
   */
  wording?: Partial<Record<keyof Static<S> & string, string>>;
  /** What the page does to the typed text before the schema sees it (lower-casing a slug). */
  prepare?: (given: Record<string, unknown>) => void;
}

/**
 * A web form decoded with the schema of the internal API route it mirrors, so that one
 * validator decides for both. The form's text becomes the shapes the schema names: a repeated
 * field an array (each value once), a number field a number, a boolean field true for `yes`,
 * `on` or `true`; an empty optional field is left out, so that the schema's default holds.
 * Fields the schema does not name are not read.
 */
export function decodeForm<S extends TObject>(
  form: FormFields,
  schema: S,
  options: DecodeOptions<S> = {},
): DecodedForm<S> {
  const given: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = fieldValue(form, name, property);
    if (value === undefined || (value === "" && !required.has(name))) continue;
    given[name] = value;
  }
  options.prepare?.(given);
  const errors: Record<string, string> = {};
  for (const error of Value.Errors(schema, given)) {
    const field = error.path.split("/")[1] || "form";
    if (errors[field]) continue;
    const wording = options.wording as Record<string, string | undefined> | undefined;
    errors[field] =
      wording?.[field] ?? explanationOf(error.schema, error.value) ?? `${error.message}.`;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, given };
  return { ok: true, value: given as Static<S>, given };
}

/** The form's text for one property, in the property's shape. */
function fieldValue(form: FormFields, name: string, property: TSchema): unknown {
  switch (shapeOf(property)) {
    case "array":
      return [...new Set(form.all(name).filter((value) => value !== ""))];
    case "number": {
      const text = form.text(name, 40);
      return text === "" ? undefined : Number(text);
    }
    case "boolean": {
      const text = form.text(name, 10).toLowerCase();
      return text === "" ? undefined : ["yes", "on", "true"].includes(text);
    }
    default:
      return form.text(name, 100_000);
  }
}

/** Which form shape a property takes: a union of literals takes its literals' type. */
function shapeOf(property: TSchema): "array" | "number" | "boolean" | "string" {
  const type = property.type ?? typeof property.const;
  if (type === "array") return "array";
  if (type === "number" || type === "integer") return "number";
  if (type === "boolean") return "boolean";
  const members = (property.anyOf ?? property.oneOf) as TSchema[] | undefined;
  if (members && members.length > 0) {
    const shapes = new Set(members.map(shapeOf));
    if (shapes.size === 1) return [...shapes][0] as ReturnType<typeof shapeOf>;
  }
  return "string";
}
