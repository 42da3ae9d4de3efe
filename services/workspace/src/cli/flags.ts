import { readFileSync } from "node:fs";
import { paragraphsOf } from "@newsroom/shared/story-body";
import type { TObject, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** A usage mistake on the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

/** What a flag takes, read from the route's TypeBox schema. */
export interface FlagSpec {
  /** The body field, snake_case; the flag is its kebab-case form. */
  field: string;
  kind: "string" | "integer" | "boolean" | "list" | "blocks";
  required: boolean;
  /** The allowed values (of the value, or of each list item). */
  values?: readonly (string | number)[];
}

export const flagName = (field: string) => `--${field.replace(/_/g, "-")}`;

function literals(schema: TSchema | undefined): (string | number)[] | undefined {
  const options = schema?.anyOf as TSchema[] | undefined;
  if (!options?.every((option) => option.const !== undefined)) return undefined;
  return options.map((option) => option.const as string | number);
}

function specOf(field: string, schema: TSchema, required: boolean): FlagSpec {
  const options = (schema.anyOf as TSchema[] | undefined)?.filter((o) => o.type !== "null");
  const single = options && options.length === 1 ? options[0]! : schema;
  const values = literals(schema);
  if (values) {
    const kind = typeof values[0] === "number" ? "integer" : "string";
    return { field, kind, required, values };
  }
  if (single.type === "array") {
    const items = single.items as TSchema;
    if (items.anyOf && !literals(items)) return { field, kind: "blocks", required };
    return { field, kind: "list", required, values: literals(items) };
  }
  if (single.type === "boolean") return { field, kind: "boolean", required };
  if (single.type === "integer" || single.type === "number") {
    return { field, kind: "integer", required };
  }
  return { field, kind: "string", required };
}

/** The flags a body schema takes, in its order. */
export function flagsOf(schema: TObject | undefined): FlagSpec[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([field, property]) =>
    specOf(field, property, required.has(field)),
  );
}

function describe(spec: FlagSpec): string {
  if (spec.kind === "blocks") return "--body 'text' | --body-file blocks.json";
  const values = spec.values?.join("|");
  const value =
    spec.kind === "boolean"
      ? "true|false"
      : spec.kind === "list"
        ? `${values ? `{${values}}` : "a"},...`
        : (values ?? (spec.kind === "integer" ? "<number>" : "<text>"));
  return `${flagName(spec.field)} ${value}`;
}

export function flagUsage(specs: FlagSpec[]): string[] {
  return specs.map(
    (spec) => `${spec.required ? "" : "["}${describe(spec)}${spec.required ? "" : "]"}`,
  );
}

export function parseFlagValue(spec: FlagSpec, raw: string, label = flagName(spec.field)): unknown {
  const allowed = (value: string | number) => {
    if (spec.values && !spec.values.includes(value)) {
      throw new UsageError(
        `${label}: "${value}" is not allowed; allowed values: ${spec.values.join(", ")}.`,
      );
    }
    return value;
  };
  switch (spec.kind) {
    case "boolean":
      if (raw !== "true" && raw !== "false") {
        throw new UsageError(`${label}: expected true or false, got "${raw}".`);
      }
      return raw === "true";
    case "integer":
      if (!/^-?\d+$/.test(raw)) {
        throw new UsageError(`${label}: expected a whole number, got "${raw}".`);
      }
      return allowed(Number(raw));
    case "list":
      return raw
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean)
        .map(allowed);
    default:
      return allowed(raw);
  }
}

/** A story body: `--body` is plain text (a paragraph per run between blank lines). */
function blocksOf(flag: string, raw: string): unknown {
  if (flag === "body") return paragraphsOf(raw);
  try {
    return JSON.parse(readFileSync(raw, "utf8"));
  } catch (error) {
    throw new UsageError(`--body-file ${raw}: ${(error as Error).message}`);
  }
}

/**
 * Reads `--flag value` and `--flag=value` pairs into a body for the schema's fields: an unknown
 * flag, a value outside the allowed ones or a missing required flag is a UsageError naming it.
 */
export function bodyFromFlags(
  specs: FlagSpec[],
  flags: [string, string][],
  given: Record<string, unknown>,
): Record<string, unknown> {
  const body = { ...given };
  const byFlag = new Map(specs.map((spec) => [flagName(spec.field).slice(2), spec]));
  for (const [flag, raw] of flags) {
    const blocks = specs.find((spec) => spec.kind === "blocks");
    if (blocks && (flag === "body" || flag === "body-file")) {
      body[blocks.field] = blocksOf(flag, raw);
      continue;
    }
    const spec = byFlag.get(flag);
    if (!spec) {
      const known = [...byFlag.keys()].map((name) => `--${name}`).join(", ");
      throw new UsageError(
        `unknown flag --${flag}${known ? `; this command takes ${known}` : ""}.`,
      );
    }
    body[spec.field] = parseFlagValue(spec, raw);
  }
  const missing = specs.filter((spec) => spec.required && body[spec.field] === undefined);
  if (missing.length > 0) {
    throw new UsageError(`missing ${missing.map(describe).join(", ")}.`);
  }
  return body;
}

/**
 * What the schema still finds wrong (lengths, patterns), each named by its flag or argument. A
 * story body's blocks are left to the API, whose answer names the block at fault.
 */
export function schemaProblems(
  schema: TObject | undefined,
  body: unknown,
  positional: readonly string[] = [],
): string[] {
  if (!schema) return [];
  const blocks = flagsOf(schema).filter((spec) => spec.kind === "blocks");
  const problems: string[] = [];
  for (const error of Value.Errors(schema, body)) {
    const [, field = "", ...inner] = error.path.split("/");
    if (blocks.some((spec) => spec.field === field)) continue;
    const label = positional.includes(field) ? `<${field}>` : field ? flagName(field) : "body";
    problems.push(
      `${label}${inner.length > 0 ? ` (item ${inner.join("/")})` : ""}: ${error.message}`,
    );
  }
  return problems;
}
