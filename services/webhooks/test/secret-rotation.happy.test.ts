import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, timingSafeEqual } from "node:crypto";
import { secretsKey } from "@newsroom/shared/config";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Hit, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { Webhook } from "standardwebhooks";
import { DeliveryWorker } from "../src/delivery/worker.ts";
import { rotateWebhookEndpointSecret, SECRET_OVERLAP_MS } from "../src/endpoints/rotate-secret.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

/**
 * A verifier written from the Standard Webhooks text alone, sharing no code with the signer:
 * HMAC-SHA256 keyed with the base64 part of `whsec_...`, over `id.timestamp.body`, base64, and
 * any of the space-separated `v1,` entries may match.
 */
function independentlyVerifies(secret: string, hit: Hit): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${hit.headers.get("webhook-id")}.${hit.headers.get("webhook-timestamp")}.${hit.body}`;
  const expected = createHmac("sha256", key).update(signed).digest();
  return (hit.headers.get("webhook-signature") ?? "").split(" ").some((entry) => {
    const [version, value] = entry.split(",");
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function packageVerifies(secret: string, hit: Hit): boolean {
  try {
    const headers: Record<string, string> = {};
    hit.headers.forEach((value, name) => {
      headers[name] = value;
    });
    new Webhook(secret).verify(hit.body, headers);
    return true;
  } catch {
    return false;
  }
}

let fx: Fixture;
const receiver = startReceiver();

beforeAll(async () => {
  fx = await webhooksFixture();
});

afterAll(async () => {
  receiver.stop();
  await fx.close();
});

describe("rotating an endpoint's secret", () => {
  test("both signatures verify for 24 hours, then only the new one", async () => {
    const story = await fx.story();
    const endpoint = await fx.endpoint(receiver.url("/rotation"), ["story.published"]);
    const rotatedAt = new Date("2026-03-01T12:00:00Z");
    let clock = new Date(rotatedAt.getTime() + 60 * 60 * 1000);
    const rotated = await rotateWebhookEndpointSecret(
      { db: fx.db, secretsKey: secretsKey(fx.config) },
      fx.orgId,
      endpoint.id,
      rotatedAt,
    );
    const oldSecret = endpoint.secret;
    const newSecret = rotated.secret;
    expect(newSecret).toStartWith("whsec_");
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.row.secretHint).toBe(newSecret.slice(-4));

    const worker = new DeliveryWorker({
      db: fx.db,
      secretsKey: secretsKey(fx.config),
      schedule: [0.05],
      pollIntervalMs: 20,
      allowInsecureTargets: true,
      now: () => clock,
    });
    const deliverOne = async (): Promise<Hit> => {
      const eventId = newId();
      await fx.db.insert(webhookDeliveries).values({
        id: newId(),
        organizationId: fx.orgId,
        endpointId: endpoint.id,
        eventId,
        eventType: "story.published",
        storyId: story.id,
        eventCreatedAt: new Date(),
        nextAttemptAt: new Date(),
      });
      worker.kick();
      return eventually(
        () => receiver.at("/rotation").find((hit) => hit.headers.get("webhook-id") === eventId),
        { message: "the delivery" },
      );
    };
    worker.start();
    try {
      const during = await deliverOne();
      expect(during.headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
      for (const secret of [oldSecret, newSecret]) {
        expect(packageVerifies(secret, during)).toBe(true);
        expect(independentlyVerifies(secret, during)).toBe(true);
      }

      clock = new Date(rotatedAt.getTime() + SECRET_OVERLAP_MS + 1_000);
      const after = await deliverOne();
      expect(after.headers.get("webhook-signature")!.split(" ")).toHaveLength(1);
      expect(packageVerifies(newSecret, after)).toBe(true);
      expect(independentlyVerifies(newSecret, after)).toBe(true);
      expect(packageVerifies(oldSecret, after)).toBe(false);
      expect(independentlyVerifies(oldSecret, after)).toBe(false);
    } finally {
      await worker.stop();
    }
  });
});
