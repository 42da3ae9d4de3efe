import { describe, expect, test } from "bun:test";
import type { webhookDeliveries, webhookEndpoints } from "../src/db/schema.ts";
import { WebhookDeliveryOut, WebhookEndpointOut } from "../src/records.ts";
import { newWebhookSecret } from "../src/secret-box.ts";
import {
  webhookDeliveryRecord,
  webhookEndpointRecord,
  webhookSecretHint,
} from "../src/webhook-records.ts";

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const SECRET = "whsec_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1sZWF2ZQ==AbCd";
const PREVIOUS_SECRET_CIPHERTEXT = "sealed-previous-secret";
const SECRET_CIPHERTEXT = "sealed-current-secret";

function endpointRow(
  overrides: Partial<typeof webhookEndpoints.$inferSelect> = {},
): typeof webhookEndpoints.$inferSelect {
  return {
    id: "0190a3c4-0000-7000-8000-000000000001",
    organizationId: "0190a3c4-0000-7000-8000-0000000000aa",
    url: "https://hooks.example.com/newsroom",
    events: ["story.published", "story.unpublished"],
    status: "enabled",
    disabledReason: null,
    secretCiphertext: SECRET_CIPHERTEXT,
    secretHint: webhookSecretHint(SECRET),
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
    disabledAnnouncementId: null,
    consecutiveFailures: 0,
    failedAttemptsInARow: 0,
    failingSince: null,
    failureAlertPercent: 0,
    lastSuccessAt: null,
    name: null,
    topics: null,
    authType: null,
    authCiphertext: null,
    rateLimitPerSecond: null,
    ordering: "none",
    createdAt: new Date("2025-03-01T09:30:00.123Z"),
    updatedAt: new Date("2025-03-02T10:00:00Z"),
    ...overrides,
  };
}

function deliveryRow(
  overrides: Partial<typeof webhookDeliveries.$inferSelect> = {},
): typeof webhookDeliveries.$inferSelect {
  return {
    id: "0190a3c4-0000-7000-8000-000000000002",
    organizationId: "0190a3c4-0000-7000-8000-0000000000aa",
    endpointId: "0190a3c4-0000-7000-8000-000000000001",
    eventId: "0190a3c4-0000-7000-8000-000000000003",
    eventType: "story.published",
    storyId: null,
    eventCreatedAt: new Date("2025-03-01T09:29:59Z"),
    status: "pending",
    attempts: 0,
    lastStatusCode: null,
    lastDurationMs: null,
    lastError: null,
    nextAttemptAt: null,
    lockedUntil: null,
    traceParent: null,
    createdAt: new Date("2025-03-01T09:30:00Z"),
    deliveredAt: null,
    storyOrder: null,
    ...overrides,
  };
}

describe("the WebhookEndpoint record", () => {
  test("has the spec's fields in order, then the additive ones; dates as ISO 8601 with an offset", () => {
    const record = webhookEndpointRecord(endpointRow());
    expect(Object.keys(record)).toEqual([
      "object",
      "id",
      "url",
      "events",
      "status",
      "disabled_reason",
      "secret_hint",
      "previous_secret_expires_at",
      "created_at",
      "updated_at",
      "name",
      "topics",
      "auth_type",
      "rate_limit_per_second",
      "ordering",
      "failure_alert_percent",
    ]);
    expect(record).toEqual({
      object: "webhook_endpoint",
      id: "0190a3c4-0000-7000-8000-000000000001",
      url: "https://hooks.example.com/newsroom",
      events: ["story.published", "story.unpublished"],
      status: "enabled",
      disabled_reason: null,
      secret_hint: "AbCd",
      previous_secret_expires_at: null,
      created_at: "2025-03-01T09:30:00.123Z",
      updated_at: "2025-03-02T10:00:00.000Z",
      name: null,
      topics: null,
      auth_type: null,
      rate_limit_per_second: null,
      ordering: "none",
      failure_alert_percent: 0,
    });
    expect(record.created_at).toMatch(ISO_WITH_OFFSET);
    expect(record.updated_at).toMatch(ISO_WITH_OFFSET);
    expect(Object.keys(record)).toEqual(Object.keys(WebhookEndpointOut.properties));
  });

  test("a disabled, rotated endpoint: its reason and when the replaced secret stops signing", () => {
    const record = webhookEndpointRecord(
      endpointRow({
        status: "disabled",
        disabledReason: "failing",
        previousSecretCiphertext: PREVIOUS_SECRET_CIPHERTEXT,
        previousSecretExpiresAt: new Date("2025-03-03T10:00:00Z"),
      }),
    );
    expect(record.status).toBe("disabled");
    expect(record.disabled_reason).toBe("failing");
    expect(record.previous_secret_expires_at).toBe("2025-03-03T10:00:00.000Z");
    expect(record.previous_secret_expires_at).toMatch(ISO_WITH_OFFSET);
    expect(Object.keys(record)).toEqual(Object.keys(WebhookEndpointOut.properties));
  });

  test("shows the endpoint's pacing and ordering", () => {
    const record = webhookEndpointRecord(
      endpointRow({ rateLimitPerSecond: 25, ordering: "story" }),
    );
    expect(record).toMatchObject({ rate_limit_per_second: 25, ordering: "story" });
  });

  test("never carries a secret, current or replaced, sealed or not: only its last four characters", () => {
    const row = endpointRow({
      previousSecretCiphertext: PREVIOUS_SECRET_CIPHERTEXT,
      previousSecretExpiresAt: new Date("2025-03-03T10:00:00Z"),
      authType: "bearer",
      authCiphertext: "sealed-auth-credentials",
    });
    const text = JSON.stringify(webhookEndpointRecord(row));
    expect(webhookEndpointRecord(row).auth_type).toBe("bearer");
    expect(text).not.toContain("sealed-auth-credentials");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(0, -4));
    expect(text).not.toContain(SECRET_CIPHERTEXT);
    expect(text).not.toContain(PREVIOUS_SECRET_CIPHERTEXT);
    expect(text).not.toMatch(/"secret"|secret_ciphertext|secretCiphertext/i);
    expect(webhookEndpointRecord(row).secret_hint).toBe("AbCd");
  });

  test("the hint is the secret's last four characters", () => {
    for (let i = 0; i < 5; i++) {
      const secret = newWebhookSecret();
      const hint = webhookSecretHint(secret);
      expect(hint).toHaveLength(4);
      expect(secret.endsWith(hint)).toBe(true);
    }
  });

  test("a row of the record's columns alone makes the same record as the whole row", () => {
    const { secretCiphertext, previousSecretCiphertext, ...columns } = endpointRow();
    expect(secretCiphertext).toBe(SECRET_CIPHERTEXT);
    expect(previousSecretCiphertext).toBeNull();
    expect(webhookEndpointRecord(columns)).toEqual(webhookEndpointRecord(endpointRow()));
  });
});

describe("the WebhookDelivery record", () => {
  test("a pending delivery before its first attempt: the nullable fields are null", () => {
    const record = webhookDeliveryRecord(deliveryRow());
    expect(Object.keys(record)).toEqual([
      "object",
      "id",
      "endpoint_id",
      "event_id",
      "event_type",
      "story_id",
      "status",
      "attempts",
      "last_status_code",
      "last_duration_ms",
      "last_error",
      "next_attempt_at",
      "created_at",
      "delivered_at",
    ]);
    expect(record).toEqual({
      object: "webhook_delivery",
      id: "0190a3c4-0000-7000-8000-000000000002",
      endpoint_id: "0190a3c4-0000-7000-8000-000000000001",
      event_id: "0190a3c4-0000-7000-8000-000000000003",
      event_type: "story.published",
      story_id: null,
      status: "pending",
      attempts: 0,
      last_status_code: null,
      last_duration_ms: null,
      last_error: null,
      next_attempt_at: null,
      created_at: "2025-03-01T09:30:00.000Z",
      delivered_at: null,
    });
    expect(record.created_at).toMatch(ISO_WITH_OFFSET);
    expect(Object.keys(record)).toEqual(Object.keys(WebhookDeliveryOut.properties));
  });

  test("a retried, then delivered delivery: its last attempt and its dates with an offset", () => {
    const record = webhookDeliveryRecord(
      deliveryRow({
        storyId: "0190a3c4-0000-7000-8000-000000000004",
        status: "delivered",
        attempts: 2,
        lastStatusCode: 204,
        lastDurationMs: 87,
        lastError: null,
        nextAttemptAt: new Date("2025-03-01T09:31:00Z"),
        deliveredAt: new Date("2025-03-01T09:31:00.250Z"),
        lockedUntil: new Date("2025-03-01T09:32:00Z"),
      }),
    );
    expect(record).toMatchObject({
      story_id: "0190a3c4-0000-7000-8000-000000000004",
      status: "delivered",
      attempts: 2,
      last_status_code: 204,
      last_duration_ms: 87,
      last_error: null,
      next_attempt_at: "2025-03-01T09:31:00.000Z",
      delivered_at: "2025-03-01T09:31:00.250Z",
    });
    expect(record.next_attempt_at).toMatch(ISO_WITH_OFFSET);
    expect(record.delivered_at).toMatch(ISO_WITH_OFFSET);
    // Storage-only columns stay out of the record.
    expect(JSON.stringify(record)).not.toMatch(/organization|locked|event_created/i);
    expect(Object.keys(record)).toEqual(Object.keys(WebhookDeliveryOut.properties));
  });

  test("a failed delivery keeps its last error", () => {
    const record = webhookDeliveryRecord(
      deliveryRow({ status: "failed", attempts: 8, lastStatusCode: 500, lastError: "http_500" }),
    );
    expect(record).toMatchObject({
      status: "failed",
      last_status_code: 500,
      last_error: "http_500",
    });
    expect(Object.keys(record)).toEqual(Object.keys(WebhookDeliveryOut.properties));
  });
});
