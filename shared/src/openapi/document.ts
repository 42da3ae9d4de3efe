import type { TSchema } from "@sinclair/typebox";
import { KEY_SCOPES } from "../api-keys.ts";
import {
  ApprovalDecisionOut,
  ErrorOut,
  StoryDetailOut,
  StoryOut,
  WebhookDeliveryExhaustedEventOut,
  WebhookDeliveryOut,
  WebhookEndpointDisabledEventOut,
  WebhookEndpointFailingEventOut,
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
  WebhookEndpointFailingEvent: WebhookEndpointFailingEventOut,
  WebhookEndpointDisabledEvent: WebhookEndpointDisabledEventOut,
  WebhookDeliveryExhaustedEvent: WebhookDeliveryExhaustedEventOut,
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
  "WWW-Authenticate": {
    description:
      'RFC 6750: `Bearer` on 401; `Bearer error="insufficient_scope", scope="<scope>"` on 403.',
    schema: { type: "string" },
  },
  Vary: {
    description:
      "`Authorization`: one address, a different answer per key (a shared cache must not mix them).",
    schema: { type: "string" },
  },
  "Last-Modified": {
    description: "The newest change the answer shows; send it back as `If-Modified-Since`.",
    schema: { type: "string" },
  },
  Location: { description: "Where the form post goes next.", schema: { type: "string" } },
  Allow: { description: "Methods this path answers.", schema: { type: "string" } },
  Deprecation: {
    description: "RFC 9745: when the route was deprecated (`@<unix seconds>`).",
    schema: { type: "string" },
  },
  Sunset: { description: "RFC 8594: when the route stops answering.", schema: { type: "string" } },
};

/**
 * The keywords of JSON Schema 2020-12 and the OpenAPI 3.1 Schema Object. Anything else a
 * TypeBox schema carries (options the app reads itself, such as `honeypot` or `trim`) is left out
 * of the document; `x-` extensions stay.
 */
const SCHEMA_KEYWORDS = new Set([
  "$ref",
  "$schema",
  "$comment",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$vocabulary",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "prefixItems",
  "items",
  "contains",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "format",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "discriminator",
  "xml",
  "externalDocs",
  "example",
]);
/** Keywords whose value is a schema or a list of schemas. */
const SUBSCHEMA = new Set([
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "prefixItems",
  "items",
  "contains",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP = new Set(["properties", "patternProperties", "dependentSchemas", "$defs"]);

/**
 * Plain JSON Schema from a TypeBox schema: only schema keywords, named records replaced by
 * `$ref` (except at the root of a named record's own definition).
 */
function jsonSchema(schema: TSchema, named: Map<unknown, string>, root = false): unknown {
  const name = named.get(schema);
  if (name && !root) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(schema)) return schema.map((item) => jsonSchema(item, named));
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    if (SCHEMA_MAP.has(key)) {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, TSchema>).map(([property, sub]) => [
          property,
          jsonSchema(sub, named),
        ]),
      );
    } else if (SUBSCHEMA.has(key)) {
      out[key] = typeof value === "object" ? jsonSchema(value as TSchema, named) : value;
    } else if (SCHEMA_KEYWORDS.has(key) || key.startsWith("x-")) {
      out[key] = value;
    }
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

/**
 * Who may call: nobody needs credentials on a public route; a client API route needs a key with
 * its scope (OpenAPI 3.1 allows role names on non-OAuth schemes), and a feed takes the same key
 * as `?key=` instead, the alternative requirement.
 */
function security(spec: OperationSpec): Record<string, string[]>[] {
  if (spec.oauthScope) return [{ oauth2: [spec.oauthScope] }];
  if (!spec.scope) return [];
  const bearer = { apiKey: [spec.scope] };
  return spec.queryKey ? [bearer, { feedKey: [spec.scope] }] : [bearer];
}

function operationObject(route: RouteInfo, spec: OperationSpec, named: Map<unknown, string>) {
  const out: Record<string, unknown> = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    parameters: parameters(route, named, spec),
    responses: Object.fromEntries(
      Object.entries(spec.responses).map(([status, answer]) => [status, response(answer, named)]),
    ),
    security: security(spec),
  };
  if (spec.status) out["x-status"] = spec.status;
  if (spec.scope) out["x-scopes"] = [spec.scope];
  if (spec.oauthScope) out["x-scopes"] = [spec.oauthScope];
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
    [
      "story.submitted",
      "storySubmitted",
      "A story was sent for review and is in the approval queue.",
    ],
    ["story.approved", "storyApproved", "A person approved the current version."],
    ["story.rejected", "storyRejected", "A person sent the story back with a note."],
    ["story.published", "storyPublished", "The story was published."],
    ["story.unpublished", "storyUnpublished", "A published story was taken down."],
    [
      "webhook.test",
      "webhookTest",
      "The test-event button was pressed; sent once, never recorded or retried.",
    ],
    [
      "webhook_endpoint.failing",
      "webhookEndpointFailing",
      "Another endpoint of the organization reached 50, 70 or 90% of the failed attempts in a row that disable it (once each per run of failures).",
    ],
    [
      "webhook_endpoint.disabled",
      "webhookEndpointDisabled",
      "Another endpoint of the organization was disabled for failing.",
    ],
    [
      "webhook_delivery.exhausted",
      "webhookDeliveryExhausted",
      "A delivery to another endpoint of the organization failed its last attempt (at most one per endpoint and run of failures).",
    ],
  ] as const;
  const bodies: Record<(typeof types)[number][0], TSchema> = {
    "story.submitted": WebhookEventOut,
    "story.approved": WebhookEventOut,
    "story.rejected": WebhookEventOut,
    "story.published": WebhookEventOut,
    "story.unpublished": WebhookEventOut,
    "webhook.test": WebhookTestEventOut,
    "webhook_endpoint.failing": WebhookEndpointFailingEventOut,
    "webhook_endpoint.disabled": WebhookEndpointDisabledEventOut,
    "webhook_delivery.exhausted": WebhookDeliveryExhaustedEventOut,
  };
  return Object.fromEntries(
    types.map(([type, operationId, summary]) => [
      type,
      {
        post: {
          operationId,
          summary,
          description: `The \`${type}\` event, posted to every enabled endpoint subscribed to it, signed as Standard Webhooks asks (the three \`webhook-\` headers).`,
          tags: ["Webhooks"],
          security: [{ webhookSignature: [] }],
          "x-status": "Coming",
          parameters: WEBHOOK_HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: jsonSchema(bodies[type], named),
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
const SECURITY_SCHEMES = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    description: `An organization API key: \`armk_live_...\` or \`armk_test_...\`. Scopes: ${KEY_SCOPES.join(", ")}.`,
  },
  oauth2: {
    type: "oauth2",
    description:
      "A person's access token (`armo_...`, one hour) for approvals through the API, from the workspace's authorization server (metadata at `/.well-known/oauth-authorization-server`): the authorization code grant with PKCE (S256) for web applications, or the device authorization grant (RFC 8628, `/oauth/device_authorization`) for command-line tools. Public clients only. API keys are refused.",
    flows: {
      authorizationCode: {
        authorizationUrl: "/app/oauth/authorize",
        tokenUrl: "/oauth/token",
        refreshUrl: "/oauth/token",
        scopes: { "stories:approve": "Approve and reject stories in the person's name." },
      },
    },
    "x-device-authorization-url": "/oauth/device_authorization",
  },
  feedKey: {
    type: "apiKey",
    in: "query",
    name: "key",
    description:
      "The feeds only: the same API key as `?key=`, accepted only for a key whose sole scope is `feed:read` (a feed reader cannot send headers).",
  },
  webhookSignature: {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description:
      "Webhook events: the receiver checks the Standard Webhooks signature with the endpoint's `whsec_` secret.",
  },
};

/** The `#/components/<kind>/<name>` references anywhere in a part of the document. */
function references(part: unknown, kind: string, found = new Set<string>()): Set<string> {
  if (Array.isArray(part)) {
    for (const item of part) references(item, kind, found);
  } else if (part && typeof part === "object") {
    for (const [key, value] of Object.entries(part)) {
      const prefix = `#/components/${kind}/`;
      if (key === "$ref" && typeof value === "string" && value.startsWith(prefix)) {
        found.add(value.slice(prefix.length));
      } else {
        references(value, kind, found);
      }
    }
  }
  return found;
}

/** The named records the paths and webhooks use, and the records those use in turn. */
function usedSchemas(named: Map<unknown, string>, parts: unknown[]): Record<string, unknown> {
  const definitions = Object.fromEntries(
    Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema, named, true)]),
  );
  const used = references(parts, "schemas");
  for (let size = -1; size !== used.size; ) {
    size = used.size;
    for (const name of [...used]) references(definitions[name], "schemas", used);
  }
  return Object.fromEntries(Object.entries(definitions).filter(([name]) => used.has(name)));
}

/** The OpenAPI 3.1 document of every public route that describes itself with \`operation()\`. */
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
    if (!spec.operationId || !spec.description) {
      throw new Error(
        `${route.method} ${route.path}: operation() needs an operationId and a description`,
      );
    }
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationObject(route, spec, named);
  }
  const events = webhooks(named);
  const headers = references([paths, events], "headers");
  return {
    openapi: "3.1.0",
    info: {
      title: "Newsroom service API",
      version: API_DOCUMENT_VERSION,
      description:
        "Public news reads, hosted newsrooms, website forms and newsletters, the read-only client API and signed webhook events. Capability status labels: `x-status` Live (deployed and usable) or Coming (built or planned, not usable yet). Questions about the API reach the team through the contact form (`POST /v1/public/contact`).",
      contact: { name: "The newsroom service team" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "This deployment" }],
    tags: [
      { name: "Health", description: "Probes and this document." },
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
      {
        name: "Webhooks",
        description: "Endpoints, delivery log and the signed events.",
        "x-status": "Coming",
      },
      {
        name: "Approvals",
        description:
          "A person's approval decisions through an application they allowed (OAuth 2.0, scope `stories:approve`); the organization's owner turns them on.",
        "x-status": "Live",
      },
    ],
    paths,
    webhooks: events,
    components: {
      schemas: usedSchemas(named, [paths, events]),
      headers: Object.fromEntries(Object.entries(HEADERS).filter(([name]) => headers.has(name))),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
