/**
 * docs/configuration.md's tables, from the declarations: each part of
 * `shared/src/config-variables.ts` (its comment, each variable's type, default and comment) and
 * the services' schemas (which read each variable). The Notes column is written by hand in the
 * file itself; a regeneration keeps each variable's note.
 */
import { readFileSync } from "node:fs";
import { ClientApiConfig } from "@newsroom/client-api/config";
import { FormsConfig } from "@newsroom/forms/config";
import { GatewayConfig } from "@newsroom/gateway/config";
import { PublicReadConfig } from "@newsroom/public-read/config";
import * as variables from "@newsroom/shared/config-variables";
import { WebhooksConfig } from "@newsroom/webhooks/config";
import { WorkspaceConfig } from "@newsroom/workspace/config";
import { Kind, OptionalKind, type TObject, type TSchema } from "@sinclair/typebox";
import type { Markers } from "./generated-section.ts";

export const CONFIGURATION_MARKERS: Markers = {
  start: "<!-- configuration:start -->",
  end: "<!-- configuration:end -->",
};

const SOURCE = new URL("../shared/src/config-variables.ts", import.meta.url).pathname;

/** Who reads what: each process's own schema. */
const READERS: [string, TObject][] = [
  ["gateway", GatewayConfig],
  ["client-api", ClientApiConfig],
  ["forms", FormsConfig],
  ["public-read", PublicReadConfig],
  ["webhooks", WebhooksConfig],
  ["workspace", WorkspaceConfig],
];

/** A JSDoc comment's text on one line. */
const flat = (comment: string) =>
  comment
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\*\s?/, "").trim())
    .filter(Boolean)
    .join(" ");

/** The comment right above `export const <part> = T.Object(` and above each `<VARIABLE>:`. */
function declarationComments(source: string) {
  const comment = "(\\/\\*\\*(?:(?!\\*\\/)[\\s\\S])*\\*\\/)";
  const parts = new Map<string, string>();
  for (const [, text, name] of source.matchAll(
    new RegExp(`${comment}\\s*export const (\\w+) = T\\.Object\\(`, "g"),
  )) {
    parts.set(name as string, flat(text as string));
  }
  const names = new Map<string, string>();
  for (const [, text, name] of source.matchAll(
    new RegExp(`${comment}\\s*([A-Z][A-Z0-9_]+):`, "g"),
  )) {
    names.set(name as string, flat(text as string));
  }
  return { parts, names };
}

/** The parts, in the order the source declares them (the composites are not parts). */
function declaredParts(source: string): [string, TObject][] {
  const named = variables as unknown as Record<string, TSchema>;
  return [...source.matchAll(/export const (\w+) = T\.Object\(/g)].map(([, name]) => [
    name as string,
    named[name as string] as TObject,
  ]);
}

const code = (value: string) => `\`${value}\``;

/** `WebhookDeliveryConfig` → "Webhook delivery". */
const label = (part: string) => {
  const words = part.replace(/Config$/, "").split(/(?=[A-Z])/);
  const first = words[0] === "Cdn" ? "CDN" : words[0];
  return [first, ...words.slice(1).map((word) => word.toLowerCase())].join(" ");
};

function typeOf(schema: TSchema): string {
  const kind = schema[Kind];
  if (kind === "Integer") {
    const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
    if (minimum !== undefined && maximum !== undefined) return `integer ${minimum}-${maximum}`;
    return minimum !== undefined ? `integer, at least ${minimum}` : "integer";
  }
  if (kind === "Boolean") return "`true` or `false`";
  if (kind === "Union") {
    const values = (schema.anyOf as { const: string }[]).map((member) => code(member.const));
    return `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
  }
  const pattern = String((schema as { pattern?: string }).pattern ?? "");
  if (pattern.startsWith("^https?://")) return "http(s) URL";
  if (pattern.startsWith("^postgres")) return "`postgres://` URL";
  if (pattern.startsWith("^(nats|tls)")) return "`nats://` or `tls://` URL";
  if (pattern.startsWith("^rediss?")) return "`redis://` or `rediss://` URL";
  if (pattern.includes("@")) return "email address";
  return pattern ? "text, of a set shape" : "text";
}

function defaultOf(schema: TSchema): string {
  if (!("default" in schema)) return "unset";
  return schema.default === "" ? "empty" : code(String(schema.default));
}

function readersOf(name: string, part: string): string {
  if (part === "LocalRunConfig") return "the local start only";
  const readers = READERS.filter(([, schema]) => name in schema.properties).map(([s]) => s);
  return readers.length === READERS.length ? "every service" : readers.join(", ");
}

/** Table cells of a Markdown row, `\|` kept inside its cell. */
const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/**
 * The hand-written notes of a configuration file: each row's last cell, for every variable named
 * in its first cell.
 */
export function notesOf(text: string): Map<string, string> {
  const notes = new Map<string, string>();
  for (const line of text.split("\n").filter((row) => row.startsWith("| `"))) {
    const row = cells(line);
    for (const [, name] of (row[0] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)) {
      notes.set(name as string, row.at(-1) ?? "");
    }
  }
  return notes;
}

/** The whole generated part of docs/configuration.md, notes taken from `current`. */
export function configurationSection(current: string): string {
  const source = readFileSync(SOURCE, "utf8");
  const comments = declarationComments(source);
  const notes = notesOf(current);
  const sections = ["<!-- generated by `npm run docs` from the declarations; edit only Notes -->"];
  for (const [part, schema] of declaredParts(source)) {
    const rows = Object.entries(schema.properties).map(([name, property]) => {
      const optional = property[OptionalKind] === "Optional";
      const row = [
        code(name),
        typeOf(property),
        optional && !("default" in property) ? "unset" : defaultOf(property),
        readersOf(name, part),
        comments.names.get(name) ?? "",
        notes.get(name) ?? "",
      ];
      return `| ${row.map((cell) => cell.replace(/(?<!\\)\|/g, "\\|")).join(" | ")} |`;
    });
    sections.push(
      `## ${label(part)} (${code(part)})`,
      comments.parts.get(part) ?? "",
      [
        "| Variable | Type | Default | Read by | Declared | Notes |",
        "|---|---|---|---|---|---|",
        ...rows,
      ].join("\n"),
    );
  }
  return sections.filter(Boolean).join("\n\n");
}

/** Variables with neither a comment where they are declared nor a note here. */
export function unexplainedVariables(current: string): string[] {
  const { names } = declarationComments(readFileSync(SOURCE, "utf8"));
  const notes = notesOf(current);
  return Object.keys(variables.ConfigSchema.properties).filter(
    (name) => !names.get(name) && !notes.get(name),
  );
}
