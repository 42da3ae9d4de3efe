/**
 * `npm run admin -- <command> [args] [--flag value]`: the workspace internal API from a shell.
 * Talks to WORKSPACE_URL (default http://127.0.0.1:$WORKSPACE_PORT) with ADMIN_TOKEN and prints
 * the JSON answer. Exit code 1 on an error answer.
 */
import { readFileSync } from "node:fs";
import { adminToken, loadConfigOrExit } from "@newsroom/shared/config";
import { paragraphsOf } from "@newsroom/shared/story-body";

interface Command {
  path: (args: string[]) => string;
  positional: string[];
  method?: "POST" | "PATCH" | "GET";
  arrays?: string[];
  help: string;
}

const COMMANDS: Record<string, Command> = {
  "org-create": {
    path: () => "/orgs",
    positional: ["slug", "name"],
    help: "<slug> <name> [--newsroom-running true] [--sandbox true]",
  },
  "org-get": { path: ([org]) => `/orgs/${org}`, positional: [], method: "GET", help: "<org>" },
  "org-update": {
    path: ([org]) => `/orgs/${org}`,
    positional: [],
    method: "PATCH",
    arrays: ["newsletter_origins"],
    help: "<org> [--newsroom-running true] [--sandbox true] [--newsletter-enabled true] [--newsletter-origins https://a,https://b]",
  },
  "site-create": {
    path: ([org]) => `/orgs/${org}/sites`,
    positional: ["site", "name", "publisher"],
    help: "<org> <site> <name> <publisher> [--enabled true] [--live true] [--accent #112233]",
  },
  "hostname-add": {
    path: ([site]) => `/sites/${site}/hostnames`,
    positional: ["hostname"],
    help: "<site> <hostname>",
  },
  "hostname-activate": {
    path: ([site, host]) => `/sites/${site}/hostnames/${host}/activate`,
    positional: [],
    help: "<site> <hostname>",
  },
  "member-add": {
    path: ([org]) => `/orgs/${org}/members`,
    positional: ["email"],
    help: "<org> <email> --role <owner|admin|approver|editor|viewer>",
  },
  "key-create": {
    path: ([org]) => `/orgs/${org}/keys`,
    positional: [],
    arrays: ["scopes"],
    help: "<org> --environment test --scopes stories:read,feed:read --lifetime-days 90",
  },
  "key-revoke": { path: ([id]) => `/keys/${id}/revoke`, positional: [], help: "<key id>" },
  "story-create": {
    path: ([org]) => `/orgs/${org}/stories`,
    positional: [],
    arrays: ["topics"],
    help: "<org> --type insight --slug my-story --title 'Title' [--summary ..] [--topics a,b] [--body 'text' | --body-file blocks.json]",
  },
  "story-version": {
    path: ([id]) => `/stories/${id}/versions`,
    positional: [],
    help: "<story id> --title 'New title' [--summary ..] [--body 'text' | --body-file blocks.json]",
  },
  "story-transition": {
    path: ([id]) => `/stories/${id}/transitions`,
    positional: ["action"],
    help: "<story id> <submit|approve|reject|schedule|publish|unpublish|archive> [--note ..] [--actor-role owner]",
  },
  "endpoint-create": {
    path: ([org]) => `/orgs/${org}/webhook_endpoints`,
    positional: ["url"],
    arrays: ["events"],
    help: "<org> <https url> --events story.published,story.unpublished",
  },
  "endpoint-disable": {
    path: ([id]) => `/webhook_endpoints/${id}/disable`,
    positional: [],
    help: "<endpoint id>",
  },
  "endpoint-enable": {
    path: ([id]) => `/webhook_endpoints/${id}/enable`,
    positional: [],
    help: "<endpoint id>",
  },
  "endpoint-test": {
    path: ([id]) => `/webhook_endpoints/${id}/test`,
    positional: [],
    help: "<endpoint id>",
  },
  "sandbox-seed": {
    path: ([org]) => `/orgs/${org}/sandbox-seed`,
    positional: [],
    help: "<org> [--count 40]  (an organization marked sandbox; never in production)",
  },
  "digest send": {
    path: () => "/digest/send",
    positional: [],
    help: "[--week 2026-W07]  (the current ISO week when left out)",
  },
};

function coerce(value: string): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  if (/^-?\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * A story body from the command line: `--body` is plain text, one paragraph per run of text
 * between blank lines; `--body-file` names a JSON file holding the list of blocks.
 */
function bodyFlag(key: string, value: string): unknown {
  if (key === "body") return paragraphsOf(value);
  try {
    return JSON.parse(readFileSync(value, "utf8"));
  } catch (error) {
    console.error(`--body-file ${value}: ${(error as Error).message}`);
    process.exit(2);
  }
}

function usage(): never {
  console.error("usage: npm run admin -- <command> ...\n");
  for (const [name, command] of Object.entries(COMMANDS))
    console.error(`  ${name} ${command.help}`);
  process.exit(2);
}

// A command is one word (`org-create`) or two (`digest send`).
const argv = process.argv.slice(2);
const twoWords = `${argv[0]} ${argv[1]}`;
const [name, ...rest] = COMMANDS[twoWords] ? [twoWords, ...argv.slice(2)] : argv;
const command = name ? COMMANDS[name] : undefined;
if (!command) usage();

const args: string[] = [];
const body: Record<string, unknown> = {};
for (let i = 0; i < rest.length; i++) {
  const arg = rest[i]!;
  if (arg.startsWith("--")) {
    const [flag, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    const key = flag.replace(/-/g, "_");
    const value = inline ?? rest[++i] ?? "true";
    if (key === "body" || key === "body_file") body.body = bodyFlag(key, value);
    else
      body[key] = command.arrays?.includes(key) ? value.split(",").filter(Boolean) : coerce(value);
  } else {
    args.push(arg);
  }
}
const pathArgCount = command.path.length === 0 ? 0 : args.length - command.positional.length;
const pathArgs = args.slice(0, pathArgCount);
command.positional.forEach((field, index) => {
  const value = args[pathArgCount + index];
  if (value !== undefined) body[field] = value;
});

const config = loadConfigOrExit();
const base = process.env.WORKSPACE_URL ?? `http://127.0.0.1:${config.WORKSPACE_PORT}`;
const method = command.method ?? "POST";
const response = await fetch(`${base}/internal/v1${command.path(pathArgs)}`, {
  method,
  headers: { authorization: `Bearer ${adminToken(config)}`, "content-type": "application/json" },
  body: method === "GET" ? undefined : JSON.stringify(body),
}).catch((error: Error) => {
  console.error(`workspace API unreachable at ${base}: ${error.message}`);
  process.exit(1);
});
console.log(JSON.stringify(await response.json(), null, 2));
process.exit(response.ok ? 0 : 1);
