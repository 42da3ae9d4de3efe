import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import postgres from "postgres";

/** A node of PostgreSQL's `explain (analyze, format json)` plan. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  /** Per loop, rounded. */
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/**
 * A parameter as an SQL literal: text (array parameters travel as their text literal) or a
 * number.
 */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  throw new Error(`no literal for a parameter of type ${typeof value}`);
}

const ROLL_BACK = new Error("rolled back");

/**
 * Runs `text` (with `$1`, `$2`... for `params`, their types cast in the text or named in
 * `types`) as a prepared statement on the plan PostgreSQL keeps for it once a connection has run
 * it a few times: its generic plan, made without the parameters' values. Returns that plan as
 * run (`explain analyze`); the statement's writes are rolled back.
 */
export async function genericPlan(
  url: string,
  text: string,
  params: unknown[],
  types: string[] = [],
): Promise<PlanNode> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  let plan: PlanNode | null = null;
  try {
    await client.begin(async (tx) => {
      await tx.unsafe("set local plan_cache_mode = force_generic_plan");
      const typed = types.length > 0 ? `(${types.join(", ")})` : "";
      await tx.unsafe(`prepare generic_plan_probe${typed} as ${text}`);
      const values = params.map(literal).join(", ");
      const [row] = await tx.unsafe(
        `explain (analyze, format json) execute generic_plan_probe(${values})`,
      );
      plan = (row as Record<string, [{ Plan: PlanNode }]>)["QUERY PLAN"]![0].Plan;
      // Whatever the statement wrote goes with the transaction.
      throw ROLL_BACK;
    });
  } catch (error) {
    if (error !== ROLL_BACK) throw error;
  } finally {
    await client.end();
  }
  return plan!;
}

/** `genericPlan` of a drizzle statement, with its own parameters. */
export function genericPlanOfQuery(url: string, query: SQL): Promise<PlanNode> {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return genericPlan(url, text, params);
}

/** Every node of a plan, the plan's own first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/**
 * The rows a plan's scans read from `table` (through any of its indexes, or all of it), summed
 * over their loops: those they passed on and those their own filters dropped.
 */
export function rowsReadFrom(plan: PlanNode, table: string): number {
  return planNodes(plan)
    .filter((node) => node["Relation Name"] === table && node["Node Type"].endsWith("Scan"))
    .reduce(
      (sum, node) =>
        sum +
        ((node["Actual Rows"] ?? 0) +
          (node["Rows Removed by Filter"] ?? 0) +
          (node["Rows Removed by Index Recheck"] ?? 0)) *
          (node["Actual Loops"] ?? 1),
      0,
    );
}
