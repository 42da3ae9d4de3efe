import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { ClientApiConfig } from "@newsroom/client-api/config";
import { FormsConfig } from "@newsroom/forms/config";
import { GatewayConfig } from "@newsroom/gateway/config";
import { PublicReadConfig } from "@newsroom/public-read/config";
import { ConfigSchema } from "@newsroom/shared/config";
import {
  EdgeConfig,
  LocalRunConfig,
  ProcessConfig,
  RuntimeConfig,
} from "@newsroom/shared/config-variables";
import { WebhooksConfig } from "@newsroom/webhooks/config";
import { WorkspaceConfig } from "@newsroom/workspace/config";
import type { TObject, TSchema } from "@sinclair/typebox";
import { unexplainedVariables } from "../../scripts/configuration-doc.ts";
import { CONFIGURATION_DOC, generatedDocs } from "../../scripts/docs.ts";
import { DATABASE_WRITER, schemaTables, tableOwners } from "../support/table-owners.ts";

/**
 * Each service's README says what it serves, reads and writes: its routes are its app's, its
 * variables are its schema's, and its tables are the ones the ownership comments in the schema
 * give it; docs/configuration.md is what the variable declarations say. Kept true here, and the
 * root README and bench/RESULTS.md kept short enough to read.
 */
const root = new URL("../../", import.meta.url).pathname;
const SERVICES: { name: string; folder: string; schema: TObject; ownProcess: boolean }[] = [
  { name: "gateway", folder: "gateway", schema: GatewayConfig, ownProcess: false },
  { name: "client-api", folder: "services/client-api", schema: ClientApiConfig, ownProcess: true },
  { name: "forms", folder: "services/forms", schema: FormsConfig, ownProcess: true },
  {
    name: "public-read",
    folder: "services/public-read",
    schema: PublicReadConfig,
    ownProcess: true,
  },
  { name: "webhooks", folder: "services/webhooks", schema: WebhooksConfig, ownProcess: true },
  { name: "workspace", folder: "services/workspace", schema: WorkspaceConfig, ownProcess: false },
];
const NAMES = SERVICES.map((service) => service.name);

/** The text of a `## Heading` section of a README, up to the next one. */
function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const codeNames = (text: string, shape: RegExp) =>
  [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).filter((name) => shape.test(name));

describe("table owners", () => {
  const tables = schemaTables().map((t) => t.table);
  const owners = tableOwners();

  test("every table says which service writes it and which read it, naming only services", () => {
    expect(tables.filter((name) => !owners.has(name))).toEqual([]);
    for (const [table, { writers, readers }] of owners) {
      const named = writers.filter((s) => !NAMES.includes(s) && s !== DATABASE_WRITER);
      expect({ table, writers: named }).toEqual({
        table,
        writers: [],
      });
      expect({ table, readers: readers.filter((s) => !NAMES.includes(s)) }).toEqual({
        table,
        readers: [],
      });
      expect(writers.length).toBeGreaterThan(0);
    }
  });

  for (const service of SERVICES) {
    test(`${service.folder}/README.md lists the tables ${service.name} writes and reads`, () => {
      const text = section(readFileSync(`${root}${service.folder}/README.md`, "utf8"), "Tables");
      const [writesText, readsText] = text.includes("Reads:") ? text.split("Reads:") : [text, ""];
      const listed = (part: string) =>
        tables.filter((table) =>
          codeNames(part ?? "", /^[a-z_*]+$/).some((name) =>
            new RegExp(`^${name.replace("*", "\\w+")}$`).test(table),
          ),
        );
      const writes = tables.filter((t) => owners.get(t)?.writers.includes(service.name));
      const reads = tables.filter((t) => owners.get(t)?.readers.includes(service.name));
      expect(listed(writesText as string).sort()).toEqual(writes.sort());
      expect(listed(readsText as string).sort()).toEqual(reads.sort());
    });
  }
});

describe("configuration per service", () => {
  const union = Object.keys(ConfigSchema.properties).sort();

  for (const service of SERVICES) {
    test(`${service.folder}/README.md lists exactly the variables of its schema`, () => {
      const text = section(readFileSync(`${root}${service.folder}/README.md`, "utf8"), "Variables");
      const listed = [...new Set(codeNames(text, /^[A-Z][A-Z0-9_]+$/))].sort();
      expect(listed).toEqual(Object.keys(service.schema.properties).sort());
    });

    test(`${service.name}'s schema takes each variable as declared once in shared/`, () => {
      const declared: Record<string, TSchema> = ConfigSchema.properties;
      for (const [name, property] of Object.entries(service.schema.properties)) {
        expect<unknown>({ name, property }).toEqual({ name, property: declared[name] });
      }
    });
  }

  test("a service run by runService reads the process, runtime and edge variables", () => {
    const base = [ProcessConfig, RuntimeConfig, EdgeConfig].flatMap((part) =>
      Object.keys(part.properties),
    );
    for (const service of SERVICES.filter((s) => s.ownProcess)) {
      const keys = Object.keys(service.schema.properties);
      expect({ service: service.name, missing: base.filter((k) => !keys.includes(k)) }).toEqual({
        service: service.name,
        missing: [],
      });
    }
  });

  test("every variable is read by some service, or only by the local start", () => {
    const read = new Set([
      ...SERVICES.flatMap((service) => Object.keys(service.schema.properties)),
      ...Object.keys(LocalRunConfig.properties),
    ]);
    expect([...read].sort()).toEqual(union);
  });

  test("the root README links each service's README and CODEOWNERS names each service", () => {
    const readme = readFileSync(`${root}README.md`, "utf8");
    const codeowners = readFileSync(`${root}.github/CODEOWNERS`, "utf8");
    for (const service of SERVICES) {
      const link = `](${service.folder}/README.md)`;
      expect({ link, inRootReadme: readme.includes(link) }).toEqual({ link, inRootReadme: true });
      expect(existsSync(`${root}${service.folder}/README.md`)).toBe(true);
      expect(codeowners).toContain(`/${service.folder}/ `);
    }
  });
});

describe("generated documentation", () => {
  test("each README's routes, docs/configuration.md and the form fields are what the code says", async () => {
    for (const [file, text] of await generatedDocs()) {
      const current = readFileSync(`${root}${file}`, "utf8");
      // On a difference the diff shows the stale lines; `npm run docs` rewrites them.
      expect({ file, fix: "npm run docs", text: current }).toEqual({
        file,
        fix: "npm run docs",
        text,
      });
    }
  }, 60_000);

  test("every service README has a generated routes table", () => {
    for (const service of SERVICES) {
      const routes = section(readFileSync(`${root}${service.folder}/README.md`, "utf8"), "Routes");
      expect({ service: service.name, rows: routes.includes("| GET | `/health` |") }).toEqual({
        service: service.name,
        rows: true,
      });
    }
  });

  test("every variable is explained: a comment where it is declared, or a note", () => {
    expect(unexplainedVariables(readFileSync(`${root}${CONFIGURATION_DOC}`, "utf8"))).toEqual([]);
  });
});

describe("the short documents", () => {
  const lines = (file: string) => readFileSync(`${root}${file}`, "utf8").split("\n").length - 1;

  test("the root README and bench/RESULTS.md stay within 300 lines", () => {
    for (const file of ["README.md", "bench/RESULTS.md"]) {
      expect({ file, short: lines(file) <= 300 }).toEqual({ file, short: true });
    }
  });

  test("the root README opens with the two commands", () => {
    const readme = readFileSync(`${root}README.md`, "utf8");
    expect(readme.split("\n").slice(0, 6)).toEqual([
      "# Newsroom service",
      "",
      "```sh",
      "npm ci && npm start    # the whole service on http://localhost:3000, embedded, with demo data",
      "npm test               # type-check, lint, and every test",
      "```",
    ]);
  });

  test("the root README links every file of docs/", () => {
    const readme = readFileSync(`${root}README.md`, "utf8");
    const docs = readdirSync(`${root}docs`).filter((name) => name.endsWith(".md"));
    expect(docs.filter((name) => !readme.includes(`](docs/${name})`))).toEqual([]);
  });
});
