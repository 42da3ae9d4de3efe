import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SERVICE_FOLDERS } from "../support/services.ts";
import { DATABASE_WRITER, schemaTables, tableOwners } from "../support/table-owners.ts";

/**
 * One writing service per table: which service writes which table is read from the code itself
 * (drizzle's `.insert(t)`, `.update(t)` and `.delete(t)` on a table imported from the schema,
 * `insertSelecting(t, ...)` of `shared/src/db/prepared.ts`, and `insert into`, `update` and
 * `delete from` in sql`` templates), and held against the schema's
 * "Written by" comments.
 */
const root = new URL("../../", import.meta.url).pathname;
/** Each service's source folder: the code that writes. */
const SERVICES = SERVICE_FOLDERS.map(({ name, folder }) => ({ name, folder: `${folder}/src` }));

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Local name → SQL table name, for the tables a file imports (as values) from the schema and the
 * constants it names them by.
 */
function importedTables(source: string, tableOf: Map<string, string>): Map<string, string> {
  const imported = new Map<string, string>();
  const statements = /import\s*\{([^}]*)\}\s*from\s*"@newsroom\/shared\/db\/schema"/g;
  for (const [, names] of source.matchAll(statements)) {
    for (const item of (names as string).split(",")) {
      const [name, local] = item.trim().split(/\s+as\s+/);
      if (!name || name.startsWith("type ")) continue;
      const table = tableOf.get(name);
      if (table) imported.set((local ?? name).trim(), table);
    }
  }
  // A shorter name for a table: `const d = webhookDeliveries;`.
  for (const [, alias, name] of source.matchAll(/\bconst\s+(\w+)\s*=\s*(\w+)\s*;/g)) {
    const table = imported.get(name as string);
    if (table) imported.set(alias as string, table);
  }
  return imported;
}

/** The text of every sql`` template, `${...}` parts kept as written. */
function sqlTemplates(source: string): string[] {
  const templates: string[] = [];
  for (let start = source.indexOf("sql`"); start >= 0; start = source.indexOf("sql`", start + 4)) {
    let i = start + 4;
    let text = "";
    while (i < source.length && source[i] !== "`") {
      if (source[i] === "\\") {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (source.startsWith("${", i)) {
        let depth = 0;
        const from = i;
        do {
          if (source[i] === "{") depth++;
          else if (source[i] === "}") depth--;
          i++;
        } while (depth > 0 && i < source.length);
        text += source.slice(from, i);
      } else {
        text += source[i++];
      }
    }
    templates.push(text);
  }
  return templates;
}

/** The SQL tables a file writes. */
function writtenTables(source: string, tableOf: Map<string, string>): Set<string> {
  const imported = importedTables(source, tableOf);
  const sqlNames = new Set(tableOf.values());
  const written = new Set<string>();
  const call = /(?:\.\s*(?:insert|update|delete)|\binsertSelecting)\(\s*(\w+)\s*[,)]/g;
  for (const [, local] of source.matchAll(call)) {
    const table = imported.get(local as string);
    if (table) written.add(table);
  }
  const statement = /\b(?:insert\s+into|update|delete\s+from)\s+(?:"?(\w+)"?|\$\{\s*(\w+)\s*\})/gi;
  for (const template of sqlTemplates(source)) {
    for (const [, name, local] of template.matchAll(statement)) {
      const table = name ? (sqlNames.has(name) ? name : undefined) : imported.get(local as string);
      if (table) written.add(table);
    }
  }
  return written;
}

/** SQL table name → the services whose code writes it. */
function writersInCode(): Map<string, string[]> {
  const tableOf = new Map(schemaTables().map((t) => [t.exportName, t.table]));
  const writers = new Map<string, string[]>();
  for (const service of SERVICES) {
    for (const file of sourceFiles(service.folder)) {
      for (const table of writtenTables(readFileSync(file, "utf8"), tableOf)) {
        const names = writers.get(table) ?? [];
        if (!names.includes(service.name)) writers.set(table, [...names, service.name]);
      }
    }
  }
  return writers;
}

const byTable = (map: Map<string, string[]>) =>
  Object.fromEntries([...map].map(([table, names]) => [table, [...names].sort()]).sort());

describe("table writers", () => {
  const tables = schemaTables().map((t) => t.table);
  const inCode = writersInCode();

  test("the reading of the code finds writes in drizzle calls and in sql templates", () => {
    const tableOf = new Map([
      ["apiKeys", "api_keys"],
      ["apiKeyUsage", "api_key_usage"],
      ["outboxEvents", "outbox_events"],
      ["webhookAttempts", "webhook_attempts"],
      ["webhookDeliveries", "webhook_deliveries"],
      ["webhookEndpoints", "webhook_endpoints"],
    ]);
    const source = `import { apiKeyUsage, type apiKeys, outboxEvents, webhookDeliveries, webhookEndpoints as endpoints } from "@newsroom/shared/db/schema";
      await db
        .update(endpoints)
        .set({ status: "disabled" });
      const d = webhookDeliveries;
      await tx.delete(d).where(eq(d.id, id));
      await db.select().from(apiKeys);
      const evented = sql\`evented as (\${insertSelecting(outboxEvents, row, "stories")})\`;
      await db.execute(sql\`insert into \${apiKeyUsage} (key_id) values (\${sql\`1\`})\`);
      await db.execute(sql\`with v as (select 1) update webhook_attempts as a set n = 1\`);
      // An update of api_keys in prose is not a write.`;
    expect([...writtenTables(source, tableOf)].sort()).toEqual([
      "api_key_usage",
      "outbox_events",
      "webhook_attempts",
      "webhook_deliveries",
      "webhook_endpoints",
    ]);
  });

  // Tables only the database's triggers maintain: no service's code writes them.
  const byTheDatabase = [...tableOwners()]
    .filter(([, owners]) => owners.writers.includes(DATABASE_WRITER))
    .map(([table]) => table);

  test("every table is written by one service, or only by the database's triggers", () => {
    expect(tables.filter((table) => !inCode.has(table) && !byTheDatabase.includes(table))).toEqual(
      [],
    );
    expect(byTheDatabase.filter((table) => inCode.has(table))).toEqual([]);
    const twoOrMore = [...inCode]
      .filter(([, names]) => names.length > 1)
      .map(([table, names]) => `${table}: ${names.sort().join(", ")}`);
    expect(twoOrMore).toEqual([]);
  });

  test('each table\'s "Written by" comment names the services whose code writes it', () => {
    const commented = new Map(
      [...tableOwners()]
        .filter(([table]) => !byTheDatabase.includes(table))
        .map(([table, owners]) => [table, owners.writers] as const),
    );
    expect(byTable(commented)).toEqual(byTable(inCode));
  });

  test("shared code writes no table: every write belongs to a service", () => {
    const tableOf = new Map(schemaTables().map((t) => [t.exportName, t.table]));
    const writes = sourceFiles("shared/src").flatMap((file) =>
      [...writtenTables(readFileSync(file, "utf8"), tableOf)].map((table) => `${file}: ${table}`),
    );
    expect(writes).toEqual([]);
  });
});

describe("the event contract", () => {
  test("shared/src/events.ts depends on no storage: the schema imports its types, not the reverse", () => {
    const events = readFileSync(`${root}shared/src/events.ts`, "utf8");
    const imports = [...events.matchAll(/from\s*"([^"]+)"/g)].map((m) => m[1] as string);
    expect(imports.filter((path) => /db\/|drizzle/.test(path))).toEqual([]);
    const schema = readFileSync(`${root}shared/src/db/schema.ts`, "utf8");
    expect(schema).toContain('from "../events.ts"');
  });
});
