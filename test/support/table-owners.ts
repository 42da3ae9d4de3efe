import { readFileSync } from "node:fs";

/**
 * What the schema says of its tables: each table's doc comment reads
 * "Written by: a, b (why). Read by: c." (readers being the services other than its writers).
 */
const root = new URL("../../", import.meta.url).pathname;
const SCHEMA = `${root}shared/src/db/schema.ts`;

/**
 * The writer named by a table that only the database's triggers maintain (no service's code
 * writes it): derived data every service's writes move, as an index is.
 */
export const DATABASE_WRITER = "the database";

export interface TableOwners {
  writers: string[];
  readers: string[];
}

/** Every table of the schema: its exported name in TypeScript and its name in SQL. */
export function schemaTables(): { exportName: string; table: string }[] {
  const schema = readFileSync(SCHEMA, "utf8");
  return [...schema.matchAll(/export const (\w+) = pgTable\(\s*"(\w+)"/g)].map((m) => ({
    exportName: m[1] as string,
    table: m[2] as string,
  }));
}

/** Table name → the services its comment says write it and read it. */
export function tableOwners(): Map<string, TableOwners> {
  const schema = readFileSync(SCHEMA, "utf8");
  const owners = new Map<string, TableOwners>();
  const table = /(\/\*\*(?:(?!\*\/)[\s\S])*?\*\/)\s*export const \w+ = pgTable\(\s*"(\w+)"/g;
  for (const [, comment, name] of schema.matchAll(table)) {
    const line = /Written by: ([^.]+)\. Read by: ([^.]+)\./.exec(
      (comment ?? "").replace(/\s*\*\s*/g, " "),
    );
    if (!line) continue;
    const services = (list: string) =>
      (list ?? "")
        .replace(/\([^)]*\)/g, "")
        .split(",")
        .map((word) => word.trim())
        .filter((w) => w !== "no other service");
    owners.set(name as string, {
      writers: services(line[1] as string),
      readers: services(line[2] as string),
    });
  }
  return owners;
}
