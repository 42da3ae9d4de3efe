import type { StoryStatus } from "@newsroom/shared/db/schema";
import {
  isOperationalEventType,
  isStatusEventType,
  type WebhookEventType,
} from "@newsroom/shared/events";
import { buildOpenApiDocument } from "@newsroom/shared/openapi/document";
import type {
  StatusIncidentUpdatedEventOut,
  StoryOut,
  WebhookDeliveryExhaustedEventOut,
  WebhookEndpointDisabledEventOut,
  WebhookEndpointFailingEventOut,
  WebhookEventOut,
  WebhookTestEventOut,
} from "@newsroom/shared/records";

/** One event type as the catalog shows it. */
export interface CatalogEntry {
  type: string;
  summary: string;
  /** The JSON schema of its body, from the OpenAPI document's `webhooks` section, refs inlined. */
  schema: unknown;
  sample:
    | WebhookEventOut
    | WebhookTestEventOut
    | OperationalEventOut
    | StatusIncidentUpdatedEventOut;
}

type OperationalEventOut =
  | WebhookEndpointFailingEventOut
  | WebhookEndpointDisabledEventOut
  | WebhookDeliveryExhaustedEventOut;

type Json = unknown;

/** Replaces each `#/components/schemas/...` reference with the schema it names. */
function inlineRefs(schema: Json, components: Record<string, Json>): Json {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components));
  if (!schema || typeof schema !== "object") return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    return inlineRefs(components[ref.slice("#/components/schemas/".length)], components);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, inlineRefs(value, components)]),
  );
}

/** Where each sample story stands: its status before and after, and its event counter. */
const SAMPLE_STEPS: Record<WebhookEventType, [StoryStatus, StoryStatus, number]> = {
  "story.submitted": ["draft", "review_required", 1],
  "story.approved": ["review_required", "approved", 2],
  "story.rejected": ["review_required", "rejected", 2],
  "story.published": ["approved", "published", 3],
  "story.unpublished": ["published", "unpublished", 4],
};

const SAMPLE_AT = "2026-03-02T09:30:00.000Z";
const SAMPLE_STORY_ID = "0f8b6d3e-5a4c-4b1e-9d2f-7c6a5b4e3d21";

/** The endpoint an operational sample is about. */
const SAMPLE_ENDPOINT = {
  endpoint_id: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
  url: "https://hooks.example.com/newsroom",
  last_error: "receiver answered 500",
};

function operationalSample(type: string, id: string): OperationalEventOut {
  const common = { id, object: "event" as const, created_at: SAMPLE_AT };
  if (type === "webhook_endpoint.failing") {
    return {
      ...common,
      type,
      data: {
        ...SAMPLE_ENDPOINT,
        threshold_percent: 70,
        failed_attempts_in_a_row: 17,
        disable_threshold_attempts: 24,
      },
    };
  }
  if (type === "webhook_endpoint.disabled") {
    return {
      ...common,
      type,
      data: { ...SAMPLE_ENDPOINT, reason: "failing", failed_in_a_row: 3, receiver_gone: false },
    };
  }
  return {
    ...common,
    type: "webhook_delivery.exhausted",
    data: {
      ...SAMPLE_ENDPOINT,
      delivery_id: "2e1d0c9b-8a7f-4e6d-9c5b-4a3f2e1d0c9b",
      event_id: "7b6a5f4e-3d2c-4b1a-8f9e-8d7c6b5a4f3e",
      event_type: "story.published",
      attempts: 8,
      last_status_code: 500,
    },
  };
}

/** An incident's first update, as the status page sends it. */
function statusSample(id: string): StatusIncidentUpdatedEventOut {
  const incident = "4e5d6c7b-8a9f-4b0c-9d1e-2f3a4b5c6d7e";
  return {
    id,
    object: "event",
    type: "status.incident_updated",
    created_at: SAMPLE_AT,
    timestamp: SAMPLE_AT,
    data: {
      incident: {
        id: incident,
        name: "Delayed webhooks",
        kind: "incident",
        status: "investigating",
        impact: "minor",
        shortlink: `https://api.example.com/status/incidents/${incident}`,
        components: [
          {
            id: "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
            name: "Webhooks",
            status: "degraded_performance",
          },
        ],
        scheduled_for: null,
        scheduled_until: null,
        created_at: SAMPLE_AT,
        updated_at: SAMPLE_AT,
        resolved_at: null,
      },
      update: {
        id: "8f7e6d5c-4b3a-4c2d-9e1f-0a9b8c7d6e5f",
        status: "investigating",
        body: "Webhook deliveries are delayed by up to ten minutes. We are looking into it.",
        created_at: SAMPLE_AT,
      },
    },
  };
}

function samplePayload(type: string): CatalogEntry["sample"] {
  const id = "6c1f0a9e-2b7d-4e3a-8f5c-1d9e8b7a6c54";
  if (isOperationalEventType(type)) return operationalSample(type, id);
  if (isStatusEventType(type)) return statusSample(id);
  if (type === "webhook.test") {
    return {
      id,
      object: "event",
      type: "webhook.test",
      created_at: SAMPLE_AT,
      data: { endpoint_id: "3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d" },
    };
  }
  const [previous, status, sequence] = SAMPLE_STEPS[type as WebhookEventType];
  const story: StoryOut = {
    object: "story",
    id: SAMPLE_STORY_ID,
    type: "insight",
    slug: "quarterly-results",
    status,
    title: "Quarterly results",
    summary: "Revenue grew in every region.",
    version: 1,
    topics: ["results"],
    published_at: status === "published" || status === "unpublished" ? SAMPLE_AT : null,
    publish_at: null,
    created_at: "2026-03-01T08:00:00.000Z",
    updated_at: SAMPLE_AT,
  };
  return {
    id,
    object: "event",
    type: type as WebhookEventType,
    created_at: SAMPLE_AT,
    data: { story_id: story.id, story, sequence, previous_status: previous },
  };
}

let cached: CatalogEntry[] | null = null;

/** Every event type a webhook endpoint receives, in the document's order. */
export function webhookCatalog(): CatalogEntry[] {
  if (cached) return cached;
  const document = buildOpenApiDocument([]) as {
    webhooks: Record<string, { post: { summary: string; requestBody: Json } }>;
    components: { schemas: Record<string, Json> };
  };
  cached = Object.entries(document.webhooks).map(([type, item]) => {
    const body = item.post.requestBody as { content: { "application/json": { schema: Json } } };
    return {
      type,
      summary: item.post.summary,
      schema: inlineRefs(body.content["application/json"].schema, document.components.schemas),
      sample: samplePayload(type),
    };
  });
  return cached;
}
