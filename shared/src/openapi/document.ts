import type { TSchema } from "@sinclair/typebox";
import { KEY_SCOPES } from "../api-keys.ts";
import {
  ApprovalDecisionOut,
  ErrorOut,
  StoryDetailOut,
  StoryOut,
  WebhookDeliveryOut,
  WebhookEndpointOut,
  WebhookEventOut,
  WebhookTestEventOut,
} from "../records.ts";
import { API_DOCUMENT_VERSION } from "../version.ts";
import { contractOf, type HeaderName, type OperationSpec, type ResponseSpec } from "./operation.ts";

/** A route as Elysia lists it (`app.routes`). */
export interface RouteInfo {
  method: string;
  path: string;
  hooks?: { params?: TSchema; query?: TSchema; body?: TSchema; detail?: unknown };
}

/** Records that get a name under components.schemas and are referenced by `$ref`. */
const NAMED_SCHEMAS: Record<string, TSchema> = {
  Story: StoryOut,
  StoryDetail: StoryDetailOut,
  ApprovalDecision: ApprovalDecisionOut,
  WebhookEndpoint: WebhookEndpointOut,
  WebhookDelivery: WebhookDeliveryOut,
  WebhookEvent: WebhookEventOut,
  WebhookTestEvent: WebhookTestEventOut,
  Error: ErrorOut,
};

const HEADERS: Record<HeaderName | "X-Request-Id" | "X-Service-Version", object> = {
  "X-Request-Id": {
    description: "A new id for every response; equals `error.request_id` on errors.",
    schema: { type: "string", pattern: "^req_[A-Za-z0-9_-]{20}$" },
  },
  "X-Service-Version": { description: "The service version.", schema: { type: "string" } },
  "RateLimit-Policy": {
    description: "The per-key limit: `300;w=60`.",
    schema: { type: "string", const: "300;w=60" },
  },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  "Cache-Tag": {
    description:
      "Purge keys (`newsroom-index`, `content:<id>`, `topic:<slug>`, `search`, `sitemap`, per-site `site:<site>...`).",
    schema: { type: "string" },
  },
  "Cache-Control": { description: "Caching rules of this answer.", schema: { type: "string" } },
  ETag: { description: "Entity tag; send it back as `If-None-Match`.", schema: { type: "string" } },
  "WWW-Authenticate": { description: "`Bearer`.", schema: { type: "string" } },
  Location: { description: "Where the form post goes next.", schema: { type: "string" } },
  Allow: { description: "Methods this path answers.", schema: { type: "string" } },
  Deprecation: {
    description: "RFC 9745: when the route was deprecated (`@<unix seconds>`).",
    schema: { type: "string" },
  },
  Sunset: { description: "RFC 8594: when the route stops answering.", schema: { type: "string" } },
};

/** Plain JSON Schema from a TypeBox schema, named records replaced by `$ref`. */
function jsonSchema(schema: TSchema, named: Map<unknown, string>, root = true): unknown {
  const name = named.get(schema);
  if (name && !root) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(schema)) return schema.map((item) => jsonSchema(item, named, false));
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || key === "$id") continue;
    out[key] =
      value && typeof value === "object" ? jsonSchema(value as TSchema, named, false) : value;
  }
  return out;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parameters(route: RouteInfo, named: Map<unknown, string>, spec: OperationSpec) {
  const out: object[] = [];
  for (const [where, schema] of [
    ["path", route.hooks?.params],
    ["query", route.hooks?.query ?? spec.query],
  ] as const) {
    const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties;
    if (!properties) continue;
    const required = new Set((schema as { required?: string[] }).required ?? []);
    for (const [name, property] of Object.entries(properties)) {
      out.push({
        name,
        in: where,
        required: where === "path" || required.has(name),
        description: (property as { description?: string }).description,
        schema: jsonSchema(property, named),
      });
    }
  }
  const declared = new Set(out.map((parameter) => (parameter as { name: string }).name));
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    if (!name || declared.has(name)) continue;
    const schema = spec.pathParameters?.[name];
    out.push({
      name,
      in: "path",
      required: true,
      schema: schema ? jsonSchema(schema, named) : { type: "string" },
    });
  }
  if (spec.queryKey) {
    out.push({
      name: "key",
      in: "query",
      required: false,
      description: "The API key, only for a key whose sole scope is `feed:read`.",
      schema: { type: "string", pattern: "^armk_(live|test)_[A-Za-z0-9_-]{43}$" },
    });
  }
  return out;
}

function headerRefs(names: readonly string[]) {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function response(answer: ResponseSpec, named: Map<unknown, string>) {
  const out: Record<string, unknown> = {
    description: answer.description,
    headers: headerRefs(["X-Request-Id", "X-Service-Version", ...(answer.headers ?? [])]),
  };
  const content =
    answer.content ??
    (answer.schema ? { [answer.contentType ?? "application/json"]: answer.schema } : null);
  if (content) {
    out.content = Object.fromEntries(
      Object.entries(content).map(([type, schema]) => {
        const media: Record<string, unknown> = { schema: jsonSchema(schema, named) };
        if (answer.example !== undefined) media.example = answer.example;
        return [type, media];
      }),
    );
  }
  return out;
}

function operationObject(route: RouteInfo, spec: OperationSpec, named: Map<unknown, string>) {
  const out: Record<string, unknown> = {
    operationId: `${route.method.toLowerCase()}${openApiPath(route.path)
      .replace(/[{}]/g, "")
      .split(/[/._-]/)
      .filter(Boolean)
      .map((part) => part[0]!.toUpperCase() + part.slice(1))
      .join("")}`,
    summary: spec.summary,
    tags: spec.tags,
    parameters: parameters(route, named, spec),
    responses: Object.fromEntries(
      Object.entries(spec.responses).map(([status, answer]) => [status, response(answer, named)]),
    ),
    security: spec.scope ? [{ apiKey: [spec.scope] }] : [],
  };
  if (spec.description) out.description = spec.description;
  if (spec.status) out["x-status"] = spec.status;
  if (spec.scope) out["x-scopes"] = [spec.scope];
  if (spec.retiring) out.deprecated = true;
  const body =
    spec.requestBody ??
    (route.hooks?.body ? { schema: route.hooks.body, contentTypes: ["application/json"] } : null);
  if (body) {
    out.requestBody = {
      required: true,
      content: Object.fromEntries(
        body.contentTypes.map((type) => [
          type,
          {
            schema: jsonSchema(body.schema, named),
            ...("example" in body && body.example !== undefined ? { example: body.example } : {}),
          },
        ]),
      ),
    };
  }
  return out;
}

const WEBHOOK_HEADERS = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "The event id; the same on every attempt and every endpoint. Deduplicate on it.",
    schema: { type: "string" },
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Unix seconds when this attempt was signed; reject outside +-5 minutes.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "`v1,<base64 HMAC-SHA256>` over `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of the `whsec_` secret; several separated by spaces.",
    schema: { type: "string" },
  },
];

function webhooks(named: Map<unknown, string>) {
  const types = [
    ["story.submitted", "A story was sent for review and is in the approval queue."],
    ["story.approved", "A person approved the current version."],
    ["story.rejected", "A person sent the story back with a note."],
    ["story.published", "The story was published."],
    ["story.unpublished", "A published story was taken down."],
    ["webhook.test", "The test-event button was pressed; sent once, never recorded or retried."],
  ] as const;
  return Object.fromEntries(
    types.map(([type, summary]) => [
      type,
      {
        post: {
          summary,
          "x-status": "Coming",
          parameters: WEBHOOK_HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: jsonSchema(
                  type === "webhook.test" ? WebhookTestEventOut : WebhookEventOut,
                  named,
                  false,
                ),
              },
            },
          },
          responses: {
            "2XX": { description: "Received. Anything else within 10 s is a failed attempt." },
          },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 document of every public route that describes itself with `operation()`. */
export function buildOpenApiDocument(routes: RouteInfo[]) {
  const named = new Map<unknown, string>(
    Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [schema, name]),
  );
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes].sort(
    (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
  for (const route of sorted) {
    const spec = contractOf(route.hooks?.detail);
    // Internal APIs (behind ADMIN_TOKEN, never behind the gateway) are not in the public document.
    if (!spec || route.path.startsWith("/internal/")) continue;
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationObject(route, spec, named);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Newsroom service API",
      version: API_DOCUMENT_VERSION,
      description:
        "Public news reads, hosted newsrooms, website forms and newsletters, the read-only client API and signed webhook events. Capability status labels: `x-status` Live (deployed and usable) or Coming (built or planned, not usable yet).",
    },
    servers: [{ url: "/", description: "This deployment" }],
    tags: [
      { name: "Health", description: "Probes." },
      { name: "Public news", description: "Published, public content only." },
      { name: "Hosted newsrooms", description: "Client newsrooms by site or hostname." },
      { name: "Forms", description: "Website forms: validated, bot-screened, emailed." },
      {
        name: "Newsletters",
        description: "The digest and organization newsletters (double opt-in).",
      },
      { name: "Checkout", description: "Checkout summary." },
      {
        name: "Client API",
        description: "Read-only, by organization API key.",
        "x-status": "Live",
      },
      { name: "Webhooks", description: "Endpoints and delivery log.", "x-status": "Coming" },
    ],
    paths,
    webhooks: webhooks(named),
    components: {
      schemas: Object.fromEntries(
        Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [
          name,
          jsonSchema(schema, named, true),
        ]),
      ),
      headers: HEADERS,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: `An organization API key: \`armk_live_...\` or \`armk_test_...\`. Scopes: ${KEY_SCOPES.join(", ")}.`,
        },
      },
    },
  };
}
