import { getTableColumns, is, SQL, sql } from "drizzle-orm";
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

/**
 * `insert into <table> (...) select ... from <source>`: the row `values` (keys as in the schema;
 * a value may be SQL read from the source), written once for each row of `source`, a common
 * table expression of the same statement, so not at all when it has none. Each parameter is
 * cast to its column's type, so a prepared statement needs no guess at it.
 */
export function insertSelecting<T extends PgTable>(
  table: T,
  values: { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL },
  source: string,
): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const names = entries.map(([key]) => sql.identifier(columnOf(columns, key).name));
  const selected = entries.map(([key, value]) => {
    if (is(value, SQL)) return value;
    const column = columnOf(columns, key);
    return sql`${sql.param(value, column)}::${sql.raw(column.getSQLType())}`;
  });
  return sql`insert into ${table} (${sql.join(names, sql`, `)}) select ${sql.join(selected, sql`, `)} from ${sql.identifier(source)}`;
}

function columnOf(columns: Record<string, PgColumn>, key: string): PgColumn {
  const column = columns[key];
  if (!column) throw new Error(`no column ${key}`);
  return column;
}
