import type { FieldError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import {
  Kind,
  type TLiteral,
  type TObject,
  type TSchema,
  type TUnion,
  Type,
} from "@sinclair/typebox";
import type { BodyKind } from "../request/body.ts";

/**
 * Field rules for form bodies. One rule reads one field from JSON (exact types) or form data
 * (strings; a repeated name keeps its last value), and answers the value or a reason code.
 * Lengths are counted in characters (Unicode code points), after trimming surrounding space.
 */
export type Checked<V> = { value: V } | { errors: FieldError[] };
export type Rule<V> = (raw: unknown, field: string, kind: BodyKind) => Checked<V>;
export type RuleSet = Record<string, Rule<unknown>>;
export type Infer<S extends RuleSet> = { [K in keyof S]: S[K] extends Rule<infer V> ? V : never };

const fail = (field: string, reason: string, message: string) => ({
  errors: [{ field, reason, message }],
});

/** Characters, not UTF-16 units: an emoji counts once. */
export function characters(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/** A scalar from form data: the last of repeated values. */
function scalar(raw: unknown, kind: BodyKind): unknown {
  if (kind === "form" && Array.isArray(raw)) return raw[raw.length - 1];
  return raw;
}

/** Absent, null, or (in either kind of body) an empty string: the field was not given. */
function absent(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === "string" && value.trim() === "")
  );
}

interface TextOptions {
  min?: number;
  max: number;
  /** Keep surrounding space (tokens compared exactly). Default: trim. */
  trim?: boolean;
}

export function text(options: TextOptions & { optional: true }): Rule<string | undefined>;
export function text(options: TextOptions & { optional?: false }): Rule<string>;
export function text(options: TextOptions & { optional?: boolean }): Rule<string | undefined> {
  const min = options.min ?? 1;
  return (raw, field, kind) => {
    const value = scalar(raw, kind);
    if (absent(value)) {
      return options.optional ? { value: undefined } : fail(field, "required", "is required");
    }
    if (typeof value !== "string") return fail(field, "invalid_type", "must be a string");
    const trimmed = options.trim === false ? value : value.trim();
    const length = characters(trimmed);
    const range = `must be ${min === 1 && options.optional ? "at most" : `${min} to`} ${options.max} characters`;
    if (length < min) return fail(field, "too_short", range);
    if (length > options.max) return fail(field, "too_long", range);
    return { value: trimmed };
  };
}

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** An address: at most 254 characters, a local part of at most 64, a domain with a dot. */
export function email(): Rule<string> {
  return (raw, field, kind) => {
    const value = scalar(raw, kind);
    if (absent(value)) return fail(field, "required", "is required");
    if (typeof value !== "string") return fail(field, "invalid_type", "must be a string");
    const trimmed = value.trim();
    if (characters(trimmed) > 254) return fail(field, "too_long", "must be at most 254 characters");
    const local = trimmed.split("@")[0] ?? "";
    if (!EMAIL.test(trimmed) || local.length > 64 || trimmed.includes("..")) {
      return fail(field, "invalid_email", "must be an email address");
    }
    return { value: trimmed };
  };
}

export function choice<const T extends readonly string[]>(
  values: T,
  options: { optional: true },
): Rule<T[number] | undefined>;
export function choice<const T extends readonly string[]>(values: T): Rule<T[number]>;
export function choice<const T extends readonly string[]>(
  values: T,
  options: { optional?: boolean } = {},
): Rule<T[number] | undefined> {
  return (raw, field, kind) => {
    const value = scalar(raw, kind);
    if (absent(value)) {
      return options.optional ? { value: undefined } : fail(field, "required", "is required");
    }
    if (typeof value !== "string") return fail(field, "invalid_type", "must be a string");
    if (!values.includes(value)) {
      return fail(field, "invalid_choice", `must be one of: ${values.join(", ")}`);
    }
    return { value };
  };
}

/** An array of distinct choices. Form data may repeat the name or bracket it (`areas[]`). */
export function choices<const T extends readonly string[]>(
  values: T,
  options: { min: number; max: number },
): Rule<T[number][]> {
  return (raw, field, kind) => {
    let list: unknown = raw;
    if (kind === "form" && typeof raw === "string") list = raw === "" ? [] : [raw];
    if (list === undefined || list === null) return fail(field, "required", "is required");
    if (!Array.isArray(list)) return fail(field, "invalid_type", "must be an array");
    if (kind === "form") list = list.filter((item) => item !== "");
    const items = list as unknown[];
    if (items.length === 0) return fail(field, "required", "is required");
    const range = `must hold ${options.min} to ${options.max} items`;
    if (items.length < options.min) return fail(field, "too_few", range);
    if (items.length > options.max) return fail(field, "too_many", range);
    if (items.some((item) => typeof item !== "string")) {
      return fail(field, "invalid_type", "must be an array of strings");
    }
    if (items.some((item) => !values.includes(item as string))) {
      return fail(field, "invalid_choice", `items must be among: ${values.join(", ")}`);
    }
    if (new Set(items).size !== items.length) {
      return fail(field, "duplicate", "must not repeat an item");
    }
    return { value: items as T[number][] };
  };
}

export function integer(options: {
  min: number;
  max: number;
  optional: true;
}): Rule<number | undefined>;
export function integer(options: { min: number; max: number; optional?: false }): Rule<number>;
export function integer(options: {
  min: number;
  max: number;
  optional?: boolean;
}): Rule<number | undefined> {
  return (raw, field, kind) => {
    const value = scalar(raw, kind);
    if (absent(value)) {
      return options.optional ? { value: undefined } : fail(field, "required", "is required");
    }
    let number: number;
    if (kind === "form" && typeof value === "string" && /^\s*-?\d{1,16}\s*$/.test(value)) {
      number = Number(value);
    } else if (typeof value === "number" && Number.isSafeInteger(value)) {
      number = value;
    } else {
      return fail(field, "invalid_type", "must be an integer");
    }
    if (number < options.min || number > options.max) {
      return fail(field, "out_of_range", `must be from ${options.min} to ${options.max}`);
    }
    return { value: number };
  };
}

const TRUE_WORDS = ["true", "on", "1"];
const FALSE_WORDS = ["false", "off", "0"];

/** Consent: `true` in JSON; `true`, `on` or `1` in form data. Anything but true fails. */
export function consent(): Rule<true> {
  return (raw, field, kind) => {
    const value = scalar(raw, kind);
    if (value === undefined || value === null) return fail(field, "required", "is required");
    if (kind === "json") {
      if (typeof value !== "boolean") return fail(field, "invalid_type", "must be a boolean");
      return value ? { value: true } : fail(field, "must_be_true", "must be true");
    }
    if (typeof value !== "string") return fail(field, "invalid_type", "must be a boolean");
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.includes(word)) return { value: true };
    if (word === "" || FALSE_WORDS.includes(word)) {
      return fail(field, "must_be_true", "must be true");
    }
    return fail(field, "invalid_type", "must be true, on or 1");
  };
}

export function uuid(options: { optional?: boolean } = {}): Rule<string | undefined> {
  return (raw, field, kind) => {
    const value = scalar(raw, kind);
    if (absent(value)) {
      return options.optional ? { value: undefined } : fail(field, "required", "is required");
    }
    if (typeof value !== "string") return fail(field, "invalid_type", "must be a string");
    if (!isUuid(value.trim())) return fail(field, "invalid_format", "must be a UUID");
    return { value: value.trim().toLowerCase() };
  };
}

/** A nested object of optional fields (`stack`), reported as `stack.site`. */
export function object<S extends RuleSet>(rules: S): Rule<Infer<S>> {
  return (raw, field, kind) => {
    const value = raw === undefined || raw === null || raw === "" ? {} : raw;
    if (typeof value !== "object" || Array.isArray(value)) {
      return fail(field, "invalid_type", "must be an object");
    }
    const result = check(rules, value as Record<string, unknown>, kind, `${field}.`);
    return "errors" in result ? result : { value: result.value };
  };
}

/** Runs every rule and collects every failure at once. */
export function check<S extends RuleSet>(
  rules: S,
  fields: Record<string, unknown>,
  kind: BodyKind,
  prefix = "",
): Checked<Infer<S>> {
  const value: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [name, rule] of Object.entries(rules)) {
    const raw = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const result = rule(raw, `${prefix}${name}`, kind);
    if ("errors" in result) errors.push(...result.errors);
    else value[name] = result.value;
  }
  return errors.length > 0 ? { errors } : { value: value as Infer<S> };
}

/**
 * The rules a TypeBox object schema describes, so the schema in `model.ts` (which the OpenAPI
 * document shows) is the one source of each field's constraints. Understood: strings (lengths,
 * `format: email | uuid`), unions of string literals (enums), arrays of them (item counts,
 * distinct), integers (bounds), `Literal(true)` (consent), nested objects, optional properties.
 * A property with `honeypot: true` is skipped (see the envelope). A kind or constraint it does
 * not understand is an error (the forms' tests meet it), never a constraint left unchecked.
 *
 * It is the forms' one check of a body, not a second validator beside Elysia's: form bodies are
 * read by the forms themselves (three content types, 64 KiB), and form data needs what a JSON
 * Schema validator does not do (strings to integers and consent words, the last of a repeated
 * field, trimming, lengths in characters) and the reasons the pages and embed.js show.
 */
export function rulesFor(schema: TObject): RuleSet {
  const rules: RuleSet = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties)) {
    if ((property as { honeypot?: boolean }).honeypot) continue;
    rules[name] = ruleFor(property, !required.has(name), name);
  }
  return rules;
}

function ruleFor(schema: TSchema, optional: boolean, name: string): Rule<unknown> {
  const kind = schema[Kind];
  if (kind === "String" && schema.format === "email") return email();
  if (kind === "String" && schema.format === "uuid") return uuid({ optional });
  // A constraint no rule checks would be shown in the OpenAPI document and never enforced.
  if (kind === "String" && (schema.pattern !== undefined || schema.format !== undefined)) {
    throw new Error(`No form rule for the field ${name}'s pattern or format`);
  }
  if (kind === "String") {
    const bounds = {
      min: schema.minLength ?? 1,
      max: schema.maxLength ?? 10_000,
      trim: schema.trim !== false,
    };
    return optional ? text({ ...bounds, optional }) : text(bounds);
  }
  if (kind === "Union" && literals(schema)) {
    const values = literals(schema)!;
    return optional ? choice(values, { optional }) : choice(values);
  }
  if (kind === "Array" && literals(schema.items)) {
    return choices(literals(schema.items)!, {
      min: schema.minItems ?? 0,
      max: schema.maxItems ?? 100,
    });
  }
  if (kind === "Integer") {
    const bounds = {
      min: schema.minimum ?? Number.MIN_SAFE_INTEGER,
      max: schema.maximum ?? Number.MAX_SAFE_INTEGER,
    };
    return optional ? integer({ ...bounds, optional }) : integer(bounds);
  }
  if (kind === "Literal" && schema.const === true) return consent();
  if (kind === "Object") return object(rulesFor(schema as TObject));
  throw new Error(`No form rule for the field ${name} (${String(kind)})`);
}

function literals(schema: TSchema | undefined): string[] | null {
  if (schema?.[Kind] !== "Union") return null;
  const values = (schema.anyOf as TSchema[]).map((item) => item.const);
  return values.every((value) => typeof value === "string") ? (values as string[]) : null;
}

/** An enum of strings as the schemas write it: a union of literals. */
export function oneOf<const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((value) => Type.Literal(value)));
}
