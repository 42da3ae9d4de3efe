import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createGateway } from "@newsroom/gateway/app";
import { httpUpstream } from "@newsroom/gateway/upstream";
import { edge } from "@newsroom/shared/http/edge";
import { SERVER_BODY_LIMIT, SERVER_SAFETY } from "@newsroom/shared/http/server-safety";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { serviceEdge } from "@newsroom/shared/service";
import { type NewsletterOrg, newsletterOrg } from "../../services/forms/test/support/fixtures.ts";
import { clientIp } from "../../services/forms/test/support/harness.ts";
import { formsWorld } from "../../services/forms/test/support/world.ts";

/**
 * A flow across two services: bodies over the limit, many at once over real HTTP, to the forms
 * service served as its own process serves it (its edge, Bun's options) and to a distributed
 * gateway in front of it. Every one is answered 413 with the Error record; none is a closed
 * connection.
 */
const { forms } = formsWorld();
const ONE_MIB = 1024 * 1024;
const servers: ReturnType<typeof Bun.serve>[] = [];
let formsUrl = "";
let gatewayUrl = "";
let org: NewsletterOrg;

function serve(fetch: Parameters<typeof Bun.serve>[0]["fetch"]) {
  const server = Bun.serve({
    ...SERVER_SAFETY,
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: SERVER_BODY_LIMIT,
    fetch,
  } as Parameters<typeof Bun.serve>[0]);
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

beforeAll(async () => {
  org = await newsletterOrg(forms.database.db);
  // Both trust the peer as they would the gateway: each request names its own client, so the
  // per-client limits stay out of the way.
  const config = { ...forms.config, TRUSTED_PROXIES: "127.0.0.1/32" };
  formsUrl = serve(serviceEdge(config, (request) => forms.service.app.handle(request)));
  const gateway = createGateway({
    config,
    mode: "distributed",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: { forms: httpUpstream(formsUrl, "forms") },
    readinessChecks: [],
  });
  gatewayUrl = serve(
    edge((request) => gateway.handle(request), { trustedProxies: "127.0.0.1/32" }),
  );
});

afterAll(() => {
  for (const server of servers) server.stop(true);
});

/** A urlencoded body of exactly `size` bytes. */
function urlencoded(size: number): string {
  const start = "email=reader%40example.com&pad=";
  return start + "x".repeat(size - start.length);
}

async function postAll(url: string, origin: string, body: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            origin,
            "x-forwarded-for": clientIp(),
          },
          body,
        });
        const record = (await response.json()) as { error?: { code?: string } };
        return `${response.status} ${record.error?.code}`;
      } catch (error) {
        return `no answer: ${(error as Error).message}`;
      }
    }),
  );
}

describe("40 bodies of 1 MiB at once", () => {
  for (const [name, base] of [
    ["the forms service", () => formsUrl],
    ["the gateway in front of it", () => gatewayUrl],
  ] as const) {
    test(`${name}: every subscribe gets 413 body_too_large, none a closed connection`, async () => {
      for (const path of [
        "/v1/public/newsletter/subscribe",
        `/v1/public/newsletter/${org.slug}/subscribe`,
      ]) {
        for (const size of [ONE_MIB, ONE_MIB + 1]) {
          const answers = await postAll(base() + path, org.origin, urlencoded(size), 40);
          expect(answers).toEqual(Array(40).fill("413 body_too_large"));
        }
      }
    }, 60_000);
  }
});
