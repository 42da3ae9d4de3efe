import type { RecordedAnswer } from "@newsroom/shared/openapi/recorder";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";

/**
 * Checks answers the apps gave against the OpenAPI document: the route and status must be
 * documented, and a JSON body must match the status's schema (JSON Schema 2020-12).
 */
type Document = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

/** Services whose every public route is in the document. */
export const DESCRIBED_SERVICES = new Set([
  "gateway",
  "public-read",
  "forms",
  "client-api",
  // Approvals through the API, the workspace's routes beside its web app.
  "workspace-oauth",
]);

function withDocumentRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withDocumentRefs);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "$ref" && typeof value === "string" && value.startsWith("#/")
        ? `document${value}`
        : withDocumentRefs(value);
  }
  return out;
}

export function contractChecker(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: "document", components: withDocumentRefs(document.components) });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

  return function check(answer: RecordedAnswer): string | null {
    const path = answer.route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const where = `${answer.service} ${answer.method} ${answer.route} ${answer.status}`;
    // HEAD is GET without a body: the GET operation documents it.
    const head = answer.method === "HEAD";
    const operation = document.paths[path]?.[head ? "get" : answer.method.toLowerCase()];
    if (!operation) return `${where}: route missing from the document`;
    const response = operation.responses[String(answer.status)];
    if (!response) return `${where}: status missing from the document`;
    const media = answer.contentType?.split(";")[0]?.trim() ?? "";
    const content = response.content;
    if (!content || head) return null;
    const documented = content[media] ?? (media.includes("json") ? undefined : null);
    if (documented === undefined)
      return `${where}: content type ${media} missing from the document`;
    if (documented === null || !media.includes("json")) return null;
    const key = `${path} ${answer.method} ${answer.status} ${media}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(withDocumentRefs(documented.schema) as object);
      compiled.set(key, validate);
    }
    if (validate(answer.body)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || "/"} ${e.message}`)
      .join("; ");
    return `${where}: body does not match the document: ${errors}`;
  };
}
