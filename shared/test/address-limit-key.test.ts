import { describe, expect, test } from "bun:test";
import { addressLimitKey } from "../src/address-limit-key.ts";

describe("the limit key of a client address", () => {
  test("IPv4 as is", () => {
    expect(addressLimitKey("192.0.2.1")).toBe("192.0.2.1");
    expect(addressLimitKey("127.0.0.1")).toBe("127.0.0.1");
  });

  test("IPv4-mapped IPv6 as its IPv4 address, in either notation", () => {
    expect(addressLimitKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressLimitKey("::FFFF:c000:0201")).toBe("192.0.2.1");
    expect(addressLimitKey("0:0:0:0:0:ffff:192.0.2.1")).toBe("192.0.2.1");
  });

  test("IPv6 by its /64 prefix, whatever the notation", () => {
    const prefix = "2001:db8:aa:bb::/64";
    for (const address of [
      "2001:db8:aa:bb::1",
      "2001:db8:aa:bb:ffff:ffff:ffff:ffff",
      "2001:0DB8:00AA:00BB:0000:0000:0000:0001",
      "2001:db8:aa:bb:1:2:192.0.2.1",
      "2001:db8:aa:bb::",
    ]) {
      expect(addressLimitKey(address)).toBe(prefix);
    }
    expect(addressLimitKey("2001:db8:aa:bc::1")).toBe("2001:db8:aa:bc::/64");
    expect(addressLimitKey("::1")).toBe("0:0:0:0::/64");
    expect(addressLimitKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressLimitKey("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  test("anything else is its own key", () => {
    expect(addressLimitKey("unknown")).toBe("unknown");
    expect(addressLimitKey("")).toBe("");
  });
});
