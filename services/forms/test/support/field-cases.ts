/**
 * Boundary cases generated from a field table: at and past each limit, empty, wrong types.
 * `value: undefined` removes the field. `accept` expects 202; otherwise 422 naming the field
 * with `reason`.
 */
export interface FieldCase {
  name: string;
  field: string;
  value: unknown;
  /** Only for this kind of body (JSON has types; form data has only strings). */
  only?: "json" | "form";
  accept?: true;
  reason?: string;
}

export type FieldSpec =
  | { field: string; kind: "text"; min: number; max: number; required: boolean }
  | { field: string; kind: "email" }
  | { field: string; kind: "enum"; values: readonly string[]; required: boolean }
  | { field: string; kind: "enum-array"; values: readonly string[]; min: number; max: number }
  | { field: string; kind: "integer"; min: number; max: number; required: boolean }
  | { field: string; kind: "consent" };

const chars = (n: number, char = "a") => char.repeat(n);

/** An address of exactly `n` characters. */
export function emailOfLength(n: number): string {
  const domain = "@example.com";
  let local = "";
  let rest = n - domain.length;
  const labels: string[] = [];
  local = chars(Math.min(64, rest), "x");
  rest -= local.length;
  // Pad the domain with labels of at most 63 characters.
  while (rest > 0) {
    const size = Math.min(63, rest - 1);
    if (size <= 0) {
      local = local.slice(0, -1);
      rest += 1;
      continue;
    }
    labels.push(chars(size, "d"));
    rest -= size + 1;
  }
  return `${local}@${[...labels, "example.com"].join(".")}`;
}

export function casesFor(spec: FieldSpec): FieldCase[] {
  const f = spec.field;
  const out: FieldCase[] = [];
  const add = (
    name: string,
    value: unknown,
    expect: { accept?: true; reason?: string },
    only?: "json" | "form",
  ) => out.push({ name: `${f}: ${name}`, field: f, value, only, ...expect });
  switch (spec.kind) {
    case "text": {
      add(`${spec.min} chars (minimum)`, chars(spec.min), { accept: true });
      add(`${spec.max} chars (maximum)`, chars(spec.max), { accept: true });
      add(`${spec.max} characters counted as characters, not UTF-16 units`, chars(spec.max, "😀"), {
        accept: true,
      });
      add(`${spec.max + 1} chars`, chars(spec.max + 1), { reason: "too_long" });
      add(`${spec.max + 1} emoji`, chars(spec.max + 1, "😀"), { reason: "too_long" });
      if (spec.min > 1) add(`${spec.min - 1} chars`, chars(spec.min - 1), { reason: "too_short" });
      if (spec.required) {
        add("empty", "", { reason: "required" });
        add("only spaces", "   ", { reason: "required" });
        add("missing", undefined, { reason: "required" });
      } else {
        add("empty (optional)", "", { accept: true });
        add("missing (optional)", undefined, { accept: true });
      }
      add("a number", 42, { reason: "invalid_type" }, "json");
      add("an array", ["a", "b"], { reason: "invalid_type" }, "json");
      add("an object", { a: 1 }, { reason: "invalid_type" }, "json");
      break;
    }
    case "email": {
      add("254 chars (maximum)", emailOfLength(254), { accept: true });
      add("255 chars", emailOfLength(255), { reason: "too_long" });
      add("no @", "person.example.com", { reason: "invalid_email" });
      add("no domain dot", "person@localhost", { reason: "invalid_email" });
      add("a space", "per son@example.com", { reason: "invalid_email" });
      add("a line break", "person@example.com\nBcc: x@example.com", { reason: "invalid_email" });
      add("empty", "", { reason: "required" });
      add("missing", undefined, { reason: "required" });
      add("a number", 7, { reason: "invalid_type" }, "json");
      break;
    }
    case "enum": {
      for (const value of spec.values) add(`"${value}"`, value, { accept: true });
      add("unknown value", "nope", { reason: "invalid_choice" });
      add("different case", spec.values[0]!.toUpperCase(), { reason: "invalid_choice" });
      if (spec.required) {
        add("empty", "", { reason: "required" });
        add("missing", undefined, { reason: "required" });
      } else {
        add("empty (optional)", "", { accept: true });
      }
      add("a number", 1, { reason: "invalid_type" }, "json");
      break;
    }
    case "enum-array": {
      add(`${spec.min} item (minimum)`, spec.values.slice(0, spec.min), { accept: true });
      add(`${spec.max} items (maximum)`, spec.values.slice(0, spec.max), { accept: true });
      add(`${spec.max + 1} items`, [...spec.values.slice(0, spec.max), spec.values[0]], {
        reason: "too_many",
      });
      add("empty", [], { reason: "required" });
      add("missing", undefined, { reason: "required" });
      add("an unknown item", [spec.values[0], "astrology"], { reason: "invalid_choice" });
      add("a repeated item", [spec.values[0], spec.values[0]], { reason: "duplicate" });
      add("a string, not an array", spec.values[0], { reason: "invalid_type" }, "json");
      add("a number item", [1], { reason: "invalid_type" }, "json");
      add("a single form value", spec.values[0], { accept: true }, "form");
      break;
    }
    case "integer": {
      add(`${spec.min} (minimum)`, spec.min, { accept: true });
      add(`${spec.max} (maximum)`, spec.max, { accept: true });
      add(`${spec.min - 1}`, spec.min - 1, { reason: "out_of_range" });
      add(`${spec.max + 1}`, spec.max + 1, { reason: "out_of_range" });
      add("a fraction", 1.5, { reason: "invalid_type" });
      add("a word", "ten", { reason: "invalid_type" });
      add("a numeric string in JSON", "5", { reason: "invalid_type" }, "json");
      if (!spec.required) add("empty (optional)", "", { accept: true }, "form");
      break;
    }
    case "consent": {
      add("true", true, { accept: true });
      add("on", "on", { accept: true }, "form");
      add("1", "1", { accept: true }, "form");
      add("false", false, { reason: "must_be_true" });
      add("off", "off", { reason: "must_be_true" }, "form");
      add("empty", "", { reason: "must_be_true" }, "form");
      add("missing", undefined, { reason: "required" });
      add("a word", "yes", { reason: "invalid_type" });
      add("the string true in JSON", "true", { reason: "invalid_type" }, "json");
      break;
    }
  }
  return out;
}

/** Sets (or, for `undefined`, removes) one field of a valid body. */
export function withField(body: Record<string, unknown>, field: string, value: unknown) {
  const out: Record<string, unknown> = { ...body };
  if (value === undefined) delete out[field];
  else out[field] = value;
  return out;
}
