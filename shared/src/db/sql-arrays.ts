import { type SQL, sql } from "drizzle-orm";

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP_SHAPE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Lists passed to PostgreSQL as ONE array parameter (`= any(...)`, `unnest(...)`) rather than
 * one parameter per item: a statement keeps the same text whatever the list's length, so it is
 * parsed and planned once per connection instead of once per length. The array travels as its
 * text literal, which every driver (postgres.js, PGlite) passes as is; items are checked
 * against their shape first, so nothing but a uuid, an integer or a timestamp ever enters it.
 */
export function uuidArray(ids: readonly string[]): SQL {
  for (const id of ids) {
    if (!UUID_SHAPE.test(id)) throw new Error("not a uuid in a uuid[] parameter");
  }
  return sql`${`{${ids.join(",")}}`}::uuid[]`;
}

/** A uuid[] that may hold nulls. */
export function nullableUuidArray(ids: readonly (string | null)[]): SQL {
  for (const id of ids) {
    if (id !== null && !UUID_SHAPE.test(id)) throw new Error("not a uuid in a uuid[] parameter");
  }
  return sql`${`{${ids.map((id) => id ?? "NULL").join(",")}}`}::uuid[]`;
}

/** A text[] of plain tokens (letters, digits, `.`, `_`, `-`), such as event types. */
export function tokenArray(values: readonly string[]): SQL {
  for (const value of values) {
    if (!/^[A-Za-z0-9._-]+$/.test(value) || value.toUpperCase() === "NULL") {
      throw new Error("not a plain token in a text[] parameter");
    }
  }
  return sql`${`{${values.join(",")}}`}::text[]`;
}

/** An integer[]; a null item stays null. */
export function integerArray(values: readonly (number | null)[]): SQL {
  for (const value of values) {
    if (value !== null && !Number.isSafeInteger(value)) {
      throw new Error("not an integer in an integer[] parameter");
    }
  }
  return sql`${`{${values.map((value) => value ?? "NULL").join(",")}}`}::integer[]`;
}

export function timestampArray(values: readonly Date[]): SQL {
  const texts = values.map((value) => value.toISOString());
  for (const text of texts) {
    if (!TIMESTAMP_SHAPE.test(text))
      throw new Error("not a timestamp in a timestamptz[] parameter");
  }
  return sql`${`{${texts.join(",")}}`}::timestamptz[]`;
}

/**
 * A text[] of any strings (a receiver's answer, a failure reason) or nulls: each item is
 * quoted in the array literal with its backslashes and double quotes escaped, so no item can end
 * its element or the array.
 */
export function textArray(values: readonly (string | null)[]): SQL {
  const items = values.map((value) =>
    value === null ? "NULL" : `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`,
  );
  return sql`${`{${items.join(",")}}`}::text[]`;
}
