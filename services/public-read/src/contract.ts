import {
  CONTENT_UNAVAILABLE,
  errorAnswer,
  type OperationSpec,
  operation,
} from "@newsroom/shared/openapi/operation";
import type { TSchema } from "@sinclair/typebox";

/** The 429 the gateway gives a client address over its limit of public reads. */
const TOO_MANY_READS = errorAnswer(
  "Over the public read limit of the client address, an IPv6 client counted by its /64: 1,200 a minute unless configured (`too_many_requests`).",
  ["Retry-After", "Cache-Control"],
);

/**
 * The OpenAPI description of a public content route: 200 with the caching headers, 304 for a
 * matching `If-None-Match`, 400 for malformed parameters, the route's 404, 429, and 503.
 */
export function publicContent(spec: {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  schema: TSchema;
  /** When the route answers 404, and why. */
  notFound?: string;
  /** Whether the route takes parameters (and so can answer 400). */
  parameters?: boolean;
}) {
  const responses: OperationSpec["responses"] = {
    200: {
      description: "Published, public content. Cacheable 300 s at the edge.",
      schema: spec.schema,
      headers: ["Cache-Control", "Cache-Tag", "ETag", "Last-Modified"],
    },
    304: {
      description:
        "Not modified since the `ETag` given in `If-None-Match` (or, without one, the date given in `If-Modified-Since`).",
      headers: ["Cache-Control", "Cache-Tag", "ETag", "Last-Modified"],
    },
  };
  if (spec.parameters) {
    responses[400] = errorAnswer("A malformed parameter (`invalid_parameters`, `error.fields`).");
  }
  if (spec.notFound) responses[404] = errorAnswer(spec.notFound, ["Cache-Control"]);
  responses[429] = TOO_MANY_READS;
  responses[503] = CONTENT_UNAVAILABLE;
  return operation({
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    status: "Live",
    responses,
  });
}
