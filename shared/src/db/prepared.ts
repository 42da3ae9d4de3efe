import { getTableColumns, type SQL, sql } from "drizzle-orm";
import { PgDialect, type PgTable } from "drizzle-orm/pg-core";
import type { Queryable } from "./index.ts";
import { rowsOf } from "./rows.ts";

const dialect = new PgDialect();

/**
 * `db.execute(query)`, prepared: each connection parses the statement once, under `name`, and
 * then only binds and runs it. Unprepared, a statement with parameters costs PostgreSQL's
 * driver a round trip of its own first, to ask the server for their types; the delivery path's
 * statements run for every batch. The text must not change from one call to the next (lists
 * travel as one array parameter, see `@newsroom/shared/db/sql-arrays`). PGlite runs it as any
 * other statement.
 */
export async function executePrepared<T>(db: Queryable, name: string, query: SQL): Promise<T[]> {
  const prepared = db._.session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
  return rowsOf<T>(await prepared.execute());
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
