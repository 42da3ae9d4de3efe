import { getTableColumns, is, Placeholder, type Query, SQL, sql } from "drizzle-orm";
import { type PgColumn, PgDialect, type PgTable } from "drizzle-orm/pg-core";
import type { Queryable } from "./index.ts";
import { rowsOf } from "./rows.ts";

const dialect = new PgDialect();

/**
 * `db.execute(query)`, prepared: each connection parses the statement once, under `name`, and
 * then only binds and runs it. Unprepared, a statement with parameters costs PostgreSQL's
 * driver a round trip of its own first, to ask the server for their types (the webhooks'
 * delivery path runs its statements for every batch, the workspace a transition's for every
 * event). The text must not change from one call to the next (lists travel as one array
 * parameter, see `@newsroom/shared/db/sql-arrays`). PGlite runs it as any other statement.
 */
export async function executePrepared<T>(db: Queryable, name: string, query: SQL): Promise<T[]> {
  return runPrepared<T>(db, name, dialect.sqlToQuery(query));
}

async function runPrepared<T>(
  db: Queryable,
  name: string,
  query: Query,
  values?: Record<string, unknown>,
): Promise<T[]> {
  return rowsOf<T>(await db._.session.prepareQuery(query, undefined, name, false).execute(values));
}

/**
 * A statement whose text is built once, the first time it runs: each value in it a
 * `sql.placeholder(name)`, given by name at every run. Drizzle walks every part of a statement
 * to make its text and parameters; for a statement of many parts that walk costs its process
 * more than running it does (a story transition's two statements: about half the workspace's
 * CPU for each). Prepared as `executePrepared`'s statements are. A placeholder's value reaches
 * the driver as given, not through its column's mapping: `placeholderValues` maps a row's.
 */
export function builtOnce<Values extends Record<string, unknown>>(
  name: string,
  build: () => SQL,
): <T>(db: Queryable, values: Values) => Promise<T[]> {
  let query: Query | undefined;
  return async <T>(db: Queryable, values: Values) => {
    query ??= dialect.sqlToQuery(build());
    return runPrepared<T>(db, name, query, values);
  };
}

/** A row of placeholders, `prefix` + each key their names (for `insertSelecting`, say). */
export function placeholdersOf<K extends string>(
  keys: readonly K[],
  prefix: string,
): Record<K, Placeholder> {
  return Object.fromEntries(keys.map((key) => [key, sql.placeholder(`${prefix}${key}`)])) as Record<
    K,
    Placeholder
  >;
}

/**
 * A row of `table` (keys as in the schema) as the values of the placeholders
 * `placeholdersOf(keys, prefix)` names: each as its column hands it to the driver (a timestamp's
 * `Date` as text), since a placeholder's value skips that mapping.
 */
export function placeholderValues<T extends PgTable>(
  table: T,
  row: Partial<T["$inferInsert"]>,
  prefix = "",
): Record<string, unknown> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      `${prefix}${key}`,
      value === null || value === undefined ? null : columnOf(columns, key).mapToDriverValue(value),
    ]),
  );
}

/**
 * A table's row as drizzle reads it, from a row of `returning *` in raw SQL (column names as in
 * the database, values as the driver hands them over); with `prefix`, from the columns that
 * `prefixedColumns` named with it.
 */
export function rowMapper<T extends PgTable>(
  table: T,
  prefix = "",
): (row: Record<string, unknown>) => T["$inferSelect"] {
  const columns = Object.entries(getTableColumns(table));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = row[prefix + column.name];
      out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return out as T["$inferSelect"];
  };
}

/**
 * Every column of `table` read through `alias`, each named `prefix` + its name: one table's row
 * beside another's in a single select, read back with `rowMapper(table, prefix)`.
 */
export function prefixedColumns(table: PgTable, alias: string, prefix: string): SQL {
  return sql.raw(
    Object.values(getTableColumns(table))
      .map((column) => `${alias}."${column.name}" as "${prefix}${column.name}"`)
      .join(", "),
  );
}

/**
 * `insert into <table> (...) select ... from <source>`: the row `values` (keys as in the schema;
 * a value may be SQL read from the source, or a placeholder), written once for each row of
 * `source`, a common table expression of the same statement, so not at all when it has none.
 * Each parameter is cast to its column's type, so a prepared statement needs no guess at it.
 */
export function insertSelecting<T extends PgTable>(
  table: T,
  values: { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL | Placeholder },
  source: string,
): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const names = entries.map(([key]) => sql.identifier(columnOf(columns, key).name));
  const selected = entries.map(([key, value]) => {
    if (is(value, SQL)) return value;
    const column = columnOf(columns, key);
    const param = is(value, Placeholder) ? value : sql.param(value, column);
    return sql`${param}::${sql.raw(column.getSQLType())}`;
  });
  return sql`insert into ${table} (${sql.join(names, sql`, `)}) select ${sql.join(selected, sql`, `)} from ${sql.identifier(source)}`;
}

function columnOf(columns: Record<string, PgColumn>, key: string): PgColumn {
  const column = columns[key];
  if (!column) throw new Error(`no column ${key}`);
  return column;
}
