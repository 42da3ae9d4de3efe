/**
 * `npm run --silent admin -- <command> [ids] [args] [--flag value]`: the workspace internal API
 * from a shell. Prints the JSON answer on stdout and nothing else (`--format table` for people);
 * notes and errors go to stderr. Exit code 1 on an error answer, 2 on a usage mistake.
 */
import { loadConfigOrExit } from "@newsroom/shared/config";
import { COMMANDS, type Command } from "./cli/commands.ts";
import { workspaceConnection } from "./cli/connection.ts";
import {
  bodyFromFlags,
  type FlagSpec,
  flagsOf,
  flagUsage,
  parseFlagValue,
  schemaProblems,
  UsageError,
} from "./cli/flags.ts";
import { asTable } from "./cli/table.ts";

const PROGRAM = "npm run --silent admin --";

function commandUsage(name: string, command: Command): string {
  const positional = new Set(command.positional ?? []);
  const specs = flagsOf(command.schema);
  const words = [
    ...command.ids.map((id) => `<${id}>`),
    ...specs
      .filter((spec) => positional.has(spec.field))
      .map((spec) => `<${spec.values ? spec.values.join("|") : spec.field}>`),
    ...flagUsage(specs.filter((spec) => !positional.has(spec.field))),
  ];
  return `${name} ${words.join(" ")}`.trimEnd();
}

function overview(): string {
  const lines = Object.entries(COMMANDS).map(
    ([name, command]) => `  ${name.padEnd(18)} ${command.summary}`,
  );
  return [
    `usage: ${PROGRAM} <command> [arguments] [--format json|table]`,
    "",
    ...lines,
    "",
    `${PROGRAM} <command> --help shows a command's arguments and flags.`,
    "A story is named <org>/<slug> or by its id; an organization or a site by its slug or id.",
  ].join("\n");
}

function fail(message: string, usage: string, code = 2): never {
  console.error(`error: ${message}\nusage: ${PROGRAM} ${usage}`);
  process.exit(code);
}

// A command is one word (`org-create`) or two (`digest send`).
const argv = process.argv.slice(2);
const twoWords = `${argv[0]} ${argv[1]}`;
const [name, ...rest] = COMMANDS[twoWords] ? [twoWords, ...argv.slice(2)] : argv;
if (!name || name === "--help" || name === "help") {
  console.log(overview());
  process.exit(name ? 0 : 2);
}
const command = COMMANDS[name];
if (!command) {
  console.error(`error: unknown command ${name}\n\n${overview()}`);
  process.exit(2);
}
const usage = commandUsage(name, command);

let format = "json";
const words: string[] = [];
const flags: [string, string][] = [];
for (let i = 0; i < rest.length; i++) {
  const arg = rest[i]!;
  if (!arg.startsWith("--")) {
    words.push(arg);
    continue;
  }
  const [flag, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
  if (flag === "help") {
    console.log(`usage: ${PROGRAM} ${usage}\n\n${command.summary}`);
    process.exit(0);
  }
  const value = inline ?? rest[++i];
  if (value === undefined) fail(`--${flag} needs a value.`, usage);
  if (flag === "format") format = value;
  else flags.push([flag, value]);
}
if (format !== "json" && format !== "table") {
  fail(`--format: "${format}" is not allowed; allowed values: json, table.`, usage);
}

const specs = flagsOf(command.schema);
const positional = (command.positional ?? []).map(
  (field) =>
    specs.find((spec) => spec.field === field) ??
    ({ field, kind: "string", required: true } as FlagSpec),
);
const expected = command.ids.length + positional.length;
if (words.length < expected) {
  const missing = [...command.ids, ...positional.map((spec) => spec.field)].slice(words.length);
  fail(`missing ${missing.map((word) => `<${word}>`).join(" ")}.`, usage);
}
if (words.length > expected) fail(`unexpected argument ${words[expected]}.`, usage);

let body: Record<string, unknown>;
try {
  const given: Record<string, unknown> = {};
  positional.forEach((spec, index) => {
    given[spec.field] = parseFlagValue(spec, words[command.ids.length + index]!, `<${spec.field}>`);
  });
  const flagSpecs = specs.filter((spec) => !command.positional?.includes(spec.field));
  body = bodyFromFlags(flagSpecs, flags, given);
} catch (error) {
  if (error instanceof UsageError) fail(error.message, usage);
  throw error;
}
const problems =
  command.method === "GET" ? [] : schemaProblems(command.schema, body, command.positional);
if (problems.length > 0) fail(problems.join("\n       "), usage);

const config = loadConfigOrExit();
const { base, token } = workspaceConnection(config);

async function call(
  method: string,
  path: string,
  payload?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: answers are printed as they come and read loosely
): Promise<{ ok: boolean; body: any }> {
  const response = await fetch(`${base}/internal/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  }).catch((error: Error) => {
    console.error(
      `error: the workspace API is unreachable at ${base}: ${error.message}\n` +
        "Is `npm start` running? Set WORKSPACE_URL (or WORKSPACE_PORT) to reach another one.",
    );
    process.exit(1);
  });
  const text = await response.text();
  return { ok: response.ok, body: text ? JSON.parse(text) : null };
}

function print(answer: unknown): void {
  console.log(format === "table" ? asTable(answer) : JSON.stringify(answer, null, 2));
}

function note(text: string): void {
  console.error(`note: ${text}`);
}

/** The stories of an organization whose newsroom is not running reach no reader. */
function noteNotRunning(org: { slug: string; newsroom_running: boolean }): void {
  if (org.newsroom_running) return;
  note(
    `organization ${org.slug} has newsroom_running false: the client API and the hosted newsroom show none of its stories, published or not, until \`${PROGRAM} org-update ${org.slug} --newsroom-running true\`.`,
  );
}

function failWith(answer: { ok: boolean; body: unknown }): never {
  print(answer.body);
  process.exit(1);
}

// A story is named `<org>/<slug>` or by its id; either way its answer names its organization.
const ids = [...words.slice(0, command.ids.length)];
let storyOrganizationId: string | null = null;
if (command.ids[0] === "story") {
  const [org, slug] = ids[0]!.includes("/") ? ids[0]!.split("/", 2) : [null, null];
  const found = await call(
    "GET",
    org
      ? `/orgs/${encodeURIComponent(org)}/stories/${encodeURIComponent(slug!)}`
      : `/stories/${encodeURIComponent(ids[0]!)}`,
  );
  if (!found.ok) failWith(found);
  ids[0] = found.body.id;
  storyOrganizationId = found.body.organization_id;
  if (name === "story-get") {
    print(found.body);
    process.exit(0);
  }
}

const encoded = ids.map((id) => encodeURIComponent(id));
let path = command.path(encoded);
let payload: unknown;
if (command.method === "GET") {
  const query = new URLSearchParams();
  for (const [field, value] of Object.entries(body)) {
    query.set(field, Array.isArray(value) ? value.join(",") : String(value));
  }
  if (query.size > 0) path += `?${query}`;
} else if (command.method !== "DELETE") {
  payload = body;
}

const before = name === "org-update" && body.newsletter_origins ? await call("GET", path) : null;
const answer = await call(command.method, path, payload);
if (!answer.ok) failWith(answer);
// A 204 (member-remove) has nothing to print.
if (answer.body !== null) print(answer.body);

if (name === "org-create" || name === "org-update") noteNotRunning(answer.body);
if (before?.ok) {
  note(
    `--newsletter-origins replaced the list (was: ${before.body.newsletter_origins.join(", ") || "empty"}; now: ${answer.body.newsletter_origins.join(", ") || "empty"}). --add-newsletter-origins and --remove-newsletter-origins change it instead.`,
  );
}
if (name === "endpoint-test") {
  const test = answer.body.test;
  const how = test.status_code === null ? test.error : `HTTP ${test.status_code}`;
  note(`test event ${test.status}: ${how} in ${test.duration_ms} ms.`);
  if (test.status !== "accepted") process.exit(1);
}
if (storyOrganizationId && name !== "story-get") {
  const org = await call("GET", `/orgs/${storyOrganizationId}`);
  if (org.ok) noteNotRunning(org.body);
}
process.exit(0);
