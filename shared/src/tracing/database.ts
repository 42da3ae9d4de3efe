import { context, trace } from "@opentelemetry/api";
import { PgPreparedQuery } from "drizzle-orm/pg-core/session";
import { inSpan, SpanKind } from "./index.ts";

/** The longest statement text a span keeps. */
const MAX_STATEMENT_CHARS = 2_000;

type QueryWithCache = (
  queryString: string,
  params: unknown[],
  query: () => Promise<unknown>,
) => Promise<unknown>;

let installed = false;

/**
 * One span per database statement, under the span that runs it (a request, a message, a delivery
 * attempt; the background polls that run under none make no trace of their own). Every query,
 * on PostgreSQL or PGlite, goes through drizzle's prepared query, whichever the driver: its one
 * step that runs the statement is wrapped here, once, when tracing starts. The statement's text
 * is drizzle's, with `$1` placeholders: never a parameter's value.
 */
export function traceDatabaseStatements(): void {
  if (installed) return;
  installed = true;
  const prototype = PgPreparedQuery.prototype as unknown as { queryWithCache: QueryWithCache };
  const run = prototype.queryWithCache;
  prototype.queryWithCache = function (this: unknown, queryString, params, query) {
    if (!trace.getSpan(context.active())) return run.call(this, queryString, params, query);
    const operation = operationOf(queryString);
    return inSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "db.system": "postgresql",
          "db.system.name": "postgresql",
          "db.operation.name": operation,
          "db.query.text": queryString.slice(0, MAX_STATEMENT_CHARS),
        },
      },
      () => run.call(this, queryString, params, query),
    );
  };
}

/** The statement's first keyword (SELECT, INSERT, WITH, ...). */
export function operationOf(statement: string): string {
  return /^\s*\(?\s*([A-Za-z]+)/.exec(statement)?.[1]?.toUpperCase() ?? "QUERY";
}
