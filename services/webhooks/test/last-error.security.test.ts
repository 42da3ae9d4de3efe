import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { closedPort } from "@newsroom/shared/testing/ports";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { failureReason } from "../src/delivery/failure-reason.ts";
import type { HostResolver } from "../src/delivery/target-guard.ts";
import { attemptsRecorded, type Fixture, webhooksFixture } from "./support/harness.ts";

/** An IPv4 address, an IPv6 address (two colons or more) or a port after a colon. */
const IPV4 = /\b\d{1,3}(\.\d{1,3}){3}\b/;
const IPV6 = /[0-9a-f]{0,4}:[0-9a-f]{0,4}:[0-9a-f:.]*/i;
const PORT = /:\d{2,5}\b/;

function expectNoAddress(text: string | null): void {
  expect({ text, ipv4: IPV4.test(text ?? "") }).toEqual({ text, ipv4: false });
  expect({ text, ipv6: IPV6.test(text ?? "") }).toEqual({ text, ipv6: false });
  expect({ text, port: PORT.test(text ?? "") }).toEqual({ text, port: false });
}

const FAKE_DNS: Record<string, string[]> = {
  "private.example.test": ["10.0.0.5"],
  "loopback-v6.example.test": ["::1"],
  "closed.example.test": ["127.0.0.1"],
};
const resolver: HostResolver = async (name) => {
  const addresses = FAKE_DNS[name];
  if (!addresses) throw Object.assign(new Error(`no such name ${name}`), { code: "ENOTFOUND" });
  return addresses;
};

let fx: Fixture;

beforeAll(async () => {
  fx = await webhooksFixture();
});

afterAll(async () => {
  await fx.close();
});

/** An endpoint stored with `url` (past the registration rules), one delivery due now. */
async function dueDeliveryTo(url: string): Promise<string> {
  const org = await fx.organization();
  const endpoint = await fx.endpoint("http://127.0.0.1:9/registered", ["story.published"], org);
  await fx.db.update(webhookEndpoints).set({ url }).where(eq(webhookEndpoints.id, endpoint.id));
  await fx.db.insert(webhookDeliveries).values({
    id: newId(),
    organizationId: org,
    endpointId: endpoint.id,
    eventId: newId(),
    eventType: "story.published",
    storyId: null,
    eventCreatedAt: new Date(),
    nextAttemptAt: new Date(),
  });
  return endpoint.id;
}

describe("last_error gives the reason, never the service's view of the network", () => {
  test("a name resolving to a private or loopback address, and a refused connection", async () => {
    const port = await closedPort();
    // [stored URL, the reason last_error must still give]
    const cases: [string, string][] = [
      ["https://private.example.test/hooks", "refused: the target resolves to a private address"],
      [
        "https://loopback-v6.example.test/hooks",
        "refused: the target resolves to a loopback address",
      ],
      ["https://10.0.0.5/hooks", "refused: the target is a private address"],
      ["https://[fd00::5]/hooks", "refused: the target is a unique-local address"],
      [`http://127.0.0.1:${port}/hooks`, "connection refused"],
      [`http://closed.example.test:${port}/hooks`, "connection refused"],
    ];
    const endpoints: string[] = [];
    for (const [url] of cases) endpoints.push(await dueDeliveryTo(url));

    const service: ServiceHandle = await createWebhooksService(
      fx.runtime({ WEBHOOK_RETRY_SCHEDULE: "3600" }),
      { pollIntervalMs: 20, attemptTimeoutMs: 3_000, resolveHost: resolver },
    );
    try {
      for (const [index, [url, reason]] of cases.entries()) {
        const row = await eventually(
          async () => {
            const [delivery] = await fx.deliveriesOf(endpoints[index]!);
            return attemptsRecorded(delivery) ? delivery : null;
          },
          { message: "the first attempt" },
        );
        expect({ url, lastError: row.lastError }).toEqual({ url, lastError: reason });
        expectNoAddress(row.lastError);
      }
    } finally {
      await service.stop();
    }
  });

  test("errors whose message names an address become a reason without it", () => {
    const thrown = (code: string, message: string) =>
      failureReason({
        kind: "thrown",
        error: Object.assign(new Error(message), { code }),
        timeoutMs: 10_000,
      });
    const cases: [string, string][] = [
      [thrown("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1234"), "connection refused"],
      [thrown("EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.5:443"), "host unreachable"],
      [thrown("ENETUNREACH", "connect ENETUNREACH [fd00::5]:443"), "network unreachable"],
      [thrown("ETIMEDOUT", "connect ETIMEDOUT 192.168.1.20:443"), "connection timed out"],
      [thrown("ECONNRESET", "read ECONNRESET 172.16.0.9:8443"), "connection reset"],
      [
        thrown("EADDRNOTAVAIL", "connect EADDRNOTAVAIL 10.1.2.3:80"),
        "request failed (EADDRNOTAVAIL)",
      ],
      [thrown("", "fetch to http://10.1.2.3:8080/ failed"), "request failed"],
      [thrown("10.1.2.3:80", "odd code"), "request failed"],
      [
        thrown("CERT_HAS_EXPIRED", "certificate of 10.1.2.3 expired"),
        "TLS error (CERT_HAS_EXPIRED)",
      ],
      [
        failureReason({
          kind: "refused",
          refusal: { reason: "address", range: "linkLocal", resolved: true },
        }),
        "refused: the target resolves to a link-local address",
      ],
      [failureReason({ kind: "answered", statusCode: 502 }), "receiver answered 502"],
    ];
    for (const [shown, expected] of cases) {
      expect(shown).toBe(expected);
      expectNoAddress(shown);
    }
  });
});
