import {
  Kind,
  type Static,
  Type as T,
  type TSchema,
  type TTransform,
  type TUnsafe,
  TypeRegistry,
} from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/**
 * What the route schemas say beyond plain TypeBox, so that Elysia's validation of `query` and
 * `params` is the one way a parameter is read, and its failures the spec's `error.fields`:
 *
 * - a schema may word its own failure (`explained`): the message in `error.fields` then names
 *   what was wrong with the given value, as the spec's tables do ("unknown status", "Expected a
 *   UUID.");
 * - an integer in a query string is plain digits (`QueryInteger`): no `1e1`, ` 25` or `0x10`;
 * - a query parameter the route's schema names may be given once (the kit refuses a repeated
 *   one, reason `repeated`, beside every other bad parameter; see `http/http-kit.ts`).
 *
 * Symbols are not JSON: the OpenAPI document shows these schemas as plain JSON Schema.
 */
const EXPLAIN = Symbol.for("newsroom.parameter.explain");

type Explainer = (given: unknown) => string;

/** The schema, with its own wording of why a given value does not fit it. */
export function explained<S extends TSchema>(schema: S, explain: Explainer): S {
  return Object.assign(schema, { [EXPLAIN]: explain });
}

/** The schema's own wording of why `given` does not fit it, if it has one. */
export function explanationOf(schema: unknown, given: unknown): string | undefined {
  const explain = (schema as { [EXPLAIN]?: Explainer } | undefined)?.[EXPLAIN];
  return explain?.(given);
}

const QUERY_INTEGER = "QueryInteger";
const DIGITS = /^[0-9]{1,6}$/;

interface IntegerOptions {
  minimum: number;
  maximum: number;
  default?: number;
  description?: string;
}

function inRange(schema: IntegerOptions, value: number): boolean {
  return Number.isSafeInteger(value) && value >= schema.minimum && value <= schema.maximum;
}

// A default the validator filled in is already a number; a given value is the query's text.
TypeRegistry.Set<IntegerOptions>(QUERY_INTEGER, (schema, value) =>
  typeof value === "number"
    ? inRange(schema, value)
    : typeof value === "string" && DIGITS.test(value) && inRange(schema, Number(value)),
);

/**
 * An integer query parameter: plain digits within the bounds, handed to the route as a number.
 * Shown in the OpenAPI document as `type: integer` with its bounds.
 */
export function QueryInteger(options: IntegerOptions): TTransform<TUnsafe<number>, number> {
  const bounds = T.Integer(options);
  const schema = explained(
    // Typed as the number it decodes to: the text it checks is the query's, never the code's.
    T.Unsafe<number>({ ...options, [Kind]: QUERY_INTEGER, type: "integer" }),
    (given) =>
      typeof given === "string" && DIGITS.test(given)
        ? (Value.Errors(bounds, Number(given)).First()?.message ?? "Out of range.")
        : "Expected an integer.",
  );
  return T.Transform(schema)
    .Decode((value) => Number(value))
    .Encode((value) => value);
}

/**
 * A schema that holds only for values that also pass `holds` (a cursor that decodes, say): the
 * route gets no value it would have to refuse itself. Shown in the OpenAPI document as the
 * schema it refines. A failure of the schema itself is worded as the schema words it, one of
 * `holds` as `wording`. `name` names the check (one per refinement).
 */
export function refined<S extends TSchema>(
  name: string,
  schema: S,
  holds: (value: Static<S>) => boolean,
  wording: string,
): TUnsafe<Static<S>> {
  TypeRegistry.Set(name, (_, value) => Value.Check(schema, value) && holds(value as Static<S>));
  return explained(T.Unsafe<Static<S>>({ ...schema, [Kind]: name }), (given) =>
    Value.Check(schema, given)
      ? wording
      : (Value.Errors(schema, given).First()?.message ?? wording),
  );
}

/** The names of the parameters an object schema of a query reads, each given at most once. */
export function singleValuedNames(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, property]) => property[Kind] !== "Array")
    .map(([name]) => name);
}
