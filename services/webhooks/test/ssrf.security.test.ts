import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server as TlsServer } from "node:tls";
import { secretsKey } from "@newsroom/shared/config";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import {
  checkTarget,
  type HostResolver,
  refusedRange,
  systemResolver,
} from "../src/delivery/target-guard.ts";
import { sendTestEvent } from "../src/delivery/test-event.ts";
import { attemptsRecorded, type Fixture, webhooksFixture } from "./support/harness.ts";

let fx: Fixture;
let receiver: Receiver;
/** Every URL the process handed to `fetch` while this file ran (a pass-through spy). */
const fetched: string[] = [];
const realFetch = globalThis.fetch;

/** Names only this file's resolver knows; anything else goes to the system resolver. */
const FAKE_DNS: Record<string, string[]> = {
  "internal.example.test": ["10.1.2.3"],
  "metadata.example.test": ["169.254.169.254"],
  "cgnat.example.test": ["100.64.12.34"],
  "mixed.example.test": ["93.184.216.34", "192.168.0.10"],
  "v6-private.example.test": ["fd12:3456::1"],
  "mapped.example.test": ["::ffff:10.0.0.1"],
  "hooks.example.test": ["127.0.0.1"],
  "hooks-v6.example.test": ["::1", "127.0.0.1"],
};
const lookups: string[] = [];
const resolver: HostResolver = async (name) => {
  lookups.push(name);
  return FAKE_DNS[name] ?? systemResolver(name);
};

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
  globalThis.fetch = Object.assign(
    (input: string | URL | Request, init?: RequestInit) => {
      fetched.push(input instanceof Request ? input.url : String(input));
      return realFetch(input, init);
    },
    { preconnect: realFetch.preconnect },
  ) as typeof fetch;
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await fx.close();
  receiver.stop();
});

/**
 * An endpoint whose stored URL is `url` (registration rules would refuse most of these: the
 * send-time guard must hold even for a row that predates them or a name whose DNS changed),
 * with one delivery due now. Returns the endpoint id.
 */
async function dueDeliveryTo(url: string): Promise<string> {
  const org = await fx.organization();
  const endpoint = await fx.endpoint(receiver.url("/registered"), ["story.published"], org);
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

async function firstAttempt(endpointId: string) {
  return eventually(
    async () => {
      const [row] = await fx.deliveriesOf(endpointId);
      return attemptsRecorded(row) ? row : null;
    },
    { message: "the first attempt", timeoutMs: 15_000 },
  );
}

/** Runs the dispatcher (retries an hour apart, so only the first attempt happens here). */
async function withService(insecure: boolean, body: () => Promise<void>): Promise<void> {
  const service: ServiceHandle = await createWebhooksService(
    fx.runtime({
      WEBHOOK_RETRY_SCHEDULE: "3600",
      WEBHOOK_ALLOW_INSECURE_TARGETS: insecure ? "true" : "false",
    }),
    { pollIntervalMs: 20, attemptTimeoutMs: 3_000, resolveHost: resolver },
  );
  try {
    await body();
  } finally {
    await service.stop();
  }
}

describe("refused at send time, each a failed attempt that sends nothing", () => {
  test("addresses and host names in every refused range", async () => {
    const port = new URL(receiver.url("/")).port;
    // [stored URL, expected last_error]. Those with `${port}` point at the live receiver: they
    // would reach it if the guard let them through.
    const cases: [string, string | RegExp][] = [
      [`http://127.0.0.1:${port}/hooks`, "refused: the target is a loopback address"],
      ["https://127.0.0.1/hooks", "refused: the target is a loopback address"],
      ["https://127.8.9.10/hooks", "refused: the target is a loopback address"],
      [`http://127.1:${port}/hooks`, "refused: the target is a loopback address"],
      [`http://2130706433:${port}/hooks`, "refused: the target is a loopback address"],
      [`http://0x7f.0.0.1:${port}/hooks`, "refused: the target is a loopback address"],
      [`http://[::1]:${port}/hooks`, "refused: the target is a loopback address"],
      [`http://0.0.0.0:${port}/hooks`, "refused: the target is an unspecified address"],
      ["https://[::]/hooks", "refused: the target is an unspecified address"],
      [`http://[::ffff:127.0.0.1]:${port}/hooks`, "refused: the target is an IPv4-mapped address"],
      ["https://10.0.0.1/hooks", "refused: the target is a private address"],
      ["https://10.255.255.254/hooks", "refused: the target is a private address"],
      ["https://172.16.0.1/hooks", "refused: the target is a private address"],
      ["https://172.31.255.254/hooks", "refused: the target is a private address"],
      ["https://192.168.1.1/hooks", "refused: the target is a private address"],
      ["https://169.254.169.254/latest/meta-data/", "refused: the target is a link-local address"],
      ["https://100.64.0.1/hooks", "refused: the target is a carrier-grade NAT address"],
      ["https://100.127.255.254/hooks", "refused: the target is a carrier-grade NAT address"],
      ["https://224.0.0.251/hooks", "refused: the target is a multicast address"],
      ["https://255.255.255.255/hooks", "refused: the target is a broadcast address"],
      ["https://198.18.0.1/hooks", "refused: the target is a benchmarking address"],
      ["https://192.0.2.10/hooks", "refused: the target is a documentation address"],
      ["https://203.0.113.5/hooks", "refused: the target is a documentation address"],
      ["https://240.0.0.1/hooks", "refused: the target is a reserved address"],
      ["https://[fd00::1]/hooks", "refused: the target is a unique-local address"],
      ["https://[fe80::1]/hooks", "refused: the target is a link-local address"],
      ["https://[ff02::1]/hooks", "refused: the target is a multicast address"],
      ["https://[2001:db8::1]/hooks", "refused: the target is a documentation address"],
      ["https://[2002:7f00:1::1]/hooks", "refused: the target is a 6to4 address"],
      ["https://[2001:0:4136:e378::1]/hooks", "refused: the target is a Teredo address"],
      ["https://[64:ff9b::a00:1]/hooks", "refused: the target is a NAT64 address"],
      ["https://[::7f00:1]/hooks", "refused: the target is a non-global address"],
      // Names: `localhost` through the real system resolver, the rest through this file's.
      [`http://localhost:${port}/hooks`, "refused: the target resolves to a loopback address"],
      ["https://internal.example.test/hooks", "refused: the target resolves to a private address"],
      [
        "https://metadata.example.test/hooks",
        "refused: the target resolves to a link-local address",
      ],
      [
        "https://cgnat.example.test/hooks",
        "refused: the target resolves to a carrier-grade NAT address",
      ],
      ["https://mixed.example.test/hooks", "refused: the target resolves to a private address"],
      [
        "https://v6-private.example.test/hooks",
        "refused: the target resolves to a unique-local address",
      ],
      [
        "https://mapped.example.test/hooks",
        "refused: the target resolves to an IPv4-mapped address",
      ],
      ["file:///etc/passwd", "refused: file URLs are not sent"],
    ];
    expect(cases.length).toBeGreaterThanOrEqual(20);
    const endpoints: string[] = [];
    for (const [url] of cases) endpoints.push(await dueDeliveryTo(url));
    const fetchedBefore = fetched.length;

    await withService(false, async () => {
      for (const [index, [url, expected]] of cases.entries()) {
        const row = await firstAttempt(endpoints[index]!);
        const shown = { url, status: row.status, lastError: row.lastError };
        expect(shown).toEqual({
          url,
          status: "pending",
          lastError: typeof expected === "string" ? expected : expect.stringMatching(expected),
        });
        expect(row.lastStatusCode).toBeNull();
        expect(row.deliveredAt).toBeNull();
      }
    });

    // Nothing was sent anywhere: no fetch at all, and the receiver saw none of its addresses.
    expect(fetched.slice(fetchedBefore)).toEqual([]);
    expect(receiver.hits).toHaveLength(0);
    expect(lookups).toContain("localhost");
  });

  test("the insecure-targets switch lets 127.0.0.1 (by address or as localhost) through and nothing else", async () => {
    const port = new URL(receiver.url("/")).port;
    const refused: [string, string][] = [
      [`http://127.0.0.2:${port}/x`, "refused: the target is a loopback address"],
      [`http://[::1]:${port}/x`, "refused: the target is a loopback address"],
      [`http://0.0.0.0:${port}/x`, "refused: the target is an unspecified address"],
      [`http://[::ffff:127.0.0.1]:${port}/x`, "refused: the target is an IPv4-mapped address"],
      ["http://10.0.0.1/x", "refused: the target is a private address"],
      [
        `http://hooks-v6.example.test:${port}/x`,
        "refused: the target resolves to a loopback address",
      ],
    ];
    const endpoints: string[] = [];
    for (const [url] of refused) endpoints.push(await dueDeliveryTo(url));
    const allowed = await dueDeliveryTo(receiver.url("/allowed"));
    const byName = await dueDeliveryTo(`http://localhost:${port}/by-name`);
    await withService(true, async () => {
      for (const [index, [url, expected]] of refused.entries()) {
        const row = await firstAttempt(endpoints[index]!);
        expect({ url, lastError: row.lastError }).toEqual({ url, lastError: expected });
      }
      const [delivered] = await eventually(
        async () => {
          const rows = await fx.deliveriesOf(allowed);
          return rows[0]?.status === "delivered" ? rows : null;
        },
        { message: "the allowed delivery" },
      );
      expect(delivered!.lastError).toBeNull();
      await eventually(
        async () => {
          const rows = await fx.deliveriesOf(byName);
          return rows[0]?.status === "delivered" ? rows : null;
        },
        { message: "the delivery to localhost" },
      );
    });
    expect(receiver.hits.map((hit) => hit.path).sort()).toEqual(["/allowed", "/by-name"]);
  });

  test("with the switch, localhost means 127.0.0.1 without a lookup (never ::1)", async () => {
    const looked: string[] = [];
    const resolve = async (name: string) => {
      looked.push(name);
      return ["::1", "127.0.0.1"];
    };
    const result = await checkTarget("http://localhost:8123/x", {
      allowInsecureTargets: true,
      resolve,
    });
    expect(result).toEqual({
      ok: true,
      target: {
        urls: ["http://127.0.0.1:8123/x"],
        host: "localhost:8123",
        serverName: "localhost",
      },
    });
    expect(looked).toEqual([]);
    const without = await checkTarget("http://localhost:8123/x", {
      allowInsecureTargets: false,
      resolve,
    });
    expect(without).toEqual({
      ok: false,
      refusal: { reason: "address", range: "loopback", resolved: true },
    });
  });

  test("without the switch, plain http to a public address is refused too", async () => {
    const result = await checkTarget("http://hooks.example.com/x", {
      allowInsecureTargets: false,
      resolve: async () => ["93.184.216.34"],
    });
    expect(result).toEqual({ ok: false, refusal: { reason: "https-required" } });
  });

  test("webhook.test goes through the same guard", async () => {
    const org = await fx.organization();
    const endpoint = await fx.endpoint(receiver.url("/test-event"), ["story.published"], org);
    const [moved] = await fx.db
      .update(webhookEndpoints)
      .set({ url: "https://metadata.example.test/latest" })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning();
    const result = await sendTestEvent(
      {
        db: fx.db,
        secretsKey: secretsKey(fx.config),
        timeoutMs: 2_000,
        allowInsecureTargets: false,
        resolve: resolver,
      },
      moved!,
    );
    expect(result).toEqual({
      event_id: expect.any(String),
      status: "failed",
      status_code: null,
      error: "refused: the target resolves to a link-local address",
      duration_ms: expect.any(Number),
    });
    expect(receiver.at("/test-event")).toHaveLength(0);
  });
});

describe("the checked address is the one connected to", () => {
  test("one lookup per attempt; the request goes to that address with the original Host", async () => {
    const port = new URL(receiver.url("/")).port;
    // `.test` names never resolve in public DNS: if fetch looked the name up again itself, the
    // attempt would fail with "host name not found".
    const endpointId = await dueDeliveryTo(`http://hooks.example.test:${port}/named?q=1`);
    const lookupsBefore = lookups.filter((name) => name === "hooks.example.test").length;
    const fetchedBefore = fetched.length;
    await withService(true, async () => {
      await eventually(
        async () => {
          const [row] = await fx.deliveriesOf(endpointId);
          return row?.status === "delivered";
        },
        { message: "the delivery" },
      );
    });
    const [hit] = receiver.at("/named");
    expect(hit!.headers.get("host")).toBe(`hooks.example.test:${port}`);
    expect(lookups.filter((name) => name === "hooks.example.test").length - lookupsBefore).toBe(1);
    expect(fetched.slice(fetchedBefore)).toEqual([`http://127.0.0.1:${port}/named?q=1`]);
  });

  test("over TLS the host name is the server name (SNI) and the certificate is checked", async () => {
    const dir = await mkdtemp(join(tmpdir(), "webhooks-tls-"));
    let server: TlsServer | undefined;
    try {
      await Bun.$`openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=hooks.example.test -addext subjectAltName=DNS:hooks.example.test -days 1 -keyout ${join(dir, "key.pem")} -out ${join(dir, "cert.pem")}`.quiet();
      const key = await Bun.file(join(dir, "key.pem")).text();
      const cert = await Bun.file(join(dir, "cert.pem")).text();
      const serverNames: string[] = [];
      server = createServer({
        key,
        cert,
        SNICallback: (name, done) => {
          serverNames.push(name);
          done(null);
        },
      });
      server.on("secureConnection", (socket) => socket.destroy());
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      const tlsPort = (server.address() as { port: number }).port;
      const endpointId = await dueDeliveryTo(`https://hooks.example.test:${tlsPort}/tls`);
      const fetchedBefore = fetched.length;
      await withService(true, async () => {
        const row = await firstAttempt(endpointId);
        // A self-signed certificate: the chain check fails, so nothing was sent over it.
        expect(row.lastError).toMatch(/^TLS error \(/);
        expect(row.lastStatusCode).toBeNull();
      });
      expect(serverNames).toContain("hooks.example.test");
      expect(fetched.slice(fetchedBefore)).toEqual([`https://127.0.0.1:${tlsPort}/tls`]);
    } finally {
      server?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("address ranges", () => {
  test("public unicast addresses pass; the edges of refused ranges do not", () => {
    for (const address of [
      "8.8.8.8",
      "93.184.216.34",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
    ]) {
      expect({ address, range: refusedRange(address) }).toEqual({ address, range: null });
    }
    for (const address of [
      "172.31.255.255",
      "100.127.255.255",
      "169.254.0.1",
      "fe80::abcd",
      "not-an-ip",
    ]) {
      expect({ address, refused: refusedRange(address) !== null }).toEqual({
        address,
        refused: true,
      });
    }
  });
});
