import { describe, expect, test } from "bun:test";
import { addressMatcher, clientIp, isLoopback, trustedProxies } from "../src/client-ip.ts";
import { loadConfig } from "../src/config.ts";
import { edge } from "../src/http/edge.ts";
import { clientIpOf } from "../src/http/request-context.ts";
import { SERVER_SAFETY } from "../src/http/server-safety.ts";
import { serviceEdge } from "../src/service.ts";

describe("client address", () => {
  const trusted = trustedProxies("10.0.0.0/8, 192.168.1.5, fd00::/8");

  test("the socket address when the peer is not a trusted proxy", () => {
    expect(clientIp("203.0.113.9", "198.51.100.1", trusted)).toBe("203.0.113.9");
  });

  test("the first untrusted address of X-Forwarded-For, read from the right", () => {
    expect(clientIp("10.1.2.3", "198.51.100.1, 203.0.113.7, 10.9.9.9", trusted)).toBe(
      "203.0.113.7",
    );
    expect(clientIp("::ffff:192.168.1.5", "198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(clientIp("fd00::1", "2001:db8::5", trusted)).toBe("2001:db8::5");
  });

  test("a forged hop that is not an address stops the walk", () => {
    expect(clientIp("10.1.2.3", "evil, 10.0.0.2", trusted)).toBe("10.0.0.2");
  });

  test("with no trusted proxies X-Forwarded-For is ignored", () => {
    expect(clientIp("203.0.113.9", "1.2.3.4", trustedProxies(""))).toBe("203.0.113.9");
  });

  test("a bad TRUSTED_PROXIES entry is refused", () => {
    expect(() => trustedProxies("10.0.0.0/8, not-an-ip")).toThrow("not-an-ip");
  });

  /** A server stand-in that counts how often the socket address is asked. */
  function socket(address: string) {
    const server = {
      asked: 0,
      requestIP: () => {
        server.asked += 1;
        return { address };
      },
    };
    return server;
  }
  const echoAddress = (request: Request) => new Response(clientIpOf(request));

  test("the edge ignores a client-sent X-Client-Ip and finds the real address", async () => {
    const handle = edge(echoAddress, { trustedProxies: "127.0.0.1" });
    const response = await handle(
      new Request("http://localhost/", {
        headers: { "x-client-ip": "6.6.6.6", "x-forwarded-for": "198.51.100.4" },
      }),
      socket("127.0.0.1"),
    );
    expect(await response.text()).toBe("198.51.100.4");
  });

  test("the socket is asked only when the address is needed, and once", async () => {
    const server = socket("203.0.113.8");
    const quiet = edge(() => new Response("ok"), { trustedProxies: "" });
    await quiet(new Request("http://localhost/"), server);
    expect(server.asked).toBe(0);
    const twice = edge((request) => new Response(clientIpOf(request) + clientIpOf(request)), {
      trustedProxies: "",
    });
    const response = await twice(new Request("http://localhost/"), server);
    expect(await response.text()).toBe("203.0.113.8203.0.113.8");
    expect(server.asked).toBe(1);
  });

  test("a service behind the gateway takes X-Client-Ip only from GATEWAY_ADDRESSES", async () => {
    const handle = edge(echoAddress, {
      trustedProxies: "192.168.0.0/16",
      gatewayAddresses: "10.0.0.0/8, ::1/128",
      behindGateway: true,
    });
    const given = () =>
      new Request("http://localhost/", { headers: { "x-client-ip": "198.51.100.7" } });
    // The gateway's addresses.
    expect(await (await handle(given(), socket("10.0.0.2"))).text()).toBe("198.51.100.7");
    expect(await (await handle(given(), socket("::1"))).text()).toBe("198.51.100.7");
    // Anyone else, a trusted proxy or another process on this host too: the header is ignored.
    expect(await (await handle(given(), socket("203.0.113.5"))).text()).toBe("203.0.113.5");
    expect(await (await handle(given(), socket("192.168.1.9"))).text()).toBe("192.168.1.9");
    expect(await (await handle(given(), socket("::ffff:127.0.0.1"))).text()).toBe("127.0.0.1");
    // Without one, the socket's address.
    const direct = await handle(new Request("http://localhost/"), socket("10.0.0.2"));
    expect(await direct.text()).toBe("10.0.0.2");
  });

  describe("over HTTP, a service as its own process serves it", () => {
    async function addressSeen(env: Record<string, string>) {
      const server = Bun.serve({
        ...SERVER_SAFETY,
        hostname: "127.0.0.1",
        port: 0,
        fetch: serviceEdge(loadConfig(env), async (request) => new Response(clientIpOf(request))),
      });
      try {
        const response = await fetch(`http://127.0.0.1:${server.port}/`, {
          headers: { "x-client-ip": "198.51.100.7" },
        });
        return await response.text();
      } finally {
        await server.stop(true);
      }
    }

    test("GATEWAY_ADDRESSES without 127.0.0.1: an X-Client-Ip from 127.0.0.1 is ignored", async () => {
      expect(await addressSeen({ GATEWAY_ADDRESSES: "10.0.0.7/32" })).toBe("127.0.0.1");
      // Not even from a trusted proxy: TRUSTED_PROXIES is about X-Forwarded-For at the gateway.
      expect(
        await addressSeen({ GATEWAY_ADDRESSES: "10.0.0.7/32", TRUSTED_PROXIES: "127.0.0.1/32" }),
      ).toBe("127.0.0.1");
    });

    test("GATEWAY_ADDRESSES with 127.0.0.1 (the default): it is believed", async () => {
      expect(await addressSeen({ GATEWAY_ADDRESSES: "10.0.0.7/32,127.0.0.1/32" })).toBe(
        "198.51.100.7",
      );
      expect(await addressSeen({})).toBe("198.51.100.7");
    });
  });

  test("a bad GATEWAY_ADDRESSES stops start-up naming the variable", () => {
    expect(() => loadConfig({ GATEWAY_ADDRESSES: "10.0.0.0/8, gateway" })).toThrow(
      "GATEWAY_ADDRESSES",
    );
    expect(() => addressMatcher("10.0.0.0/8, 300.1.2.3", "GATEWAY_ADDRESSES")).toThrow(
      "GATEWAY_ADDRESSES: not an address or CIDR: 300.1.2.3",
    );
  });

  test("a client gone before its address is asked is 'unknown', never this host", async () => {
    const handle = edge(echoAddress, { trustedProxies: "127.0.0.1" });
    const gone = { requestIP: () => null };
    const request = new Request("http://localhost/", {
      headers: { "x-forwarded-for": "198.51.100.4" },
    });
    expect(await (await handle(request, gone)).text()).toBe("unknown");
  });

  test("loopback addresses", () => {
    for (const address of ["127.0.0.1", "127.8.0.3", "::1", "::ffff:127.0.0.1"]) {
      expect(isLoopback(address), address).toBe(true);
    }
    for (const address of ["10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "128.0.0.1", "unknown"]) {
      expect(isLoopback(address), address).toBe(false);
    }
  });
});
