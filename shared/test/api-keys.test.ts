import { describe, expect, test } from "bun:test";
import { hashKey, sameHash } from "../src/api-keys.ts";

describe("sameHash", () => {
  test("is true only for the same digest, whatever character differs", () => {
    const digest = hashKey("armk_test_example");
    expect(sameHash(digest, hashKey("armk_test_example"))).toBe(true);
    for (const at of [0, 31, 63]) {
      const other = digest.slice(0, at) + (digest[at] === "0" ? "1" : "0") + digest.slice(at + 1);
      expect(sameHash(digest, other)).toBe(false);
      expect(sameHash(other, digest)).toBe(false);
    }
    expect(sameHash(digest, digest.slice(0, 62))).toBe(false);
    expect(sameHash(digest, `${digest}00`)).toBe(false);
    expect(sameHash("", "")).toBe(true);
  });
});
