import { describe, expect, test } from "bun:test";
import { isDatabaseUnavailable } from "../src/db/unavailable.ts";

/** drizzle's wrapper around a driver's error, as a failed query throws it. */
const wrapped = (code: string) =>
  new Error("Failed query: select 1", { cause: Object.assign(new Error("driver"), { code }) });

describe("a database that cannot serve now", () => {
  test.each([
    "55000", // not currently accepting connections
    "57P01",
    "57P02",
    "57P03",
    "53000",
    "53300",
    "08006",
    "57014",
    "55P03",
    "ECONNREFUSED",
    "ECONNRESET",
    "CONNECT_TIMEOUT",
    "CONNECTION_CLOSED",
  ])("%s is unavailable, not a fault", (code) => {
    expect(isDatabaseUnavailable(wrapped(code))).toBe(true);
  });

  test.each(["23505", "42P01", "22P02", "XX000"])("%s is a fault (500)", (code) => {
    expect(isDatabaseUnavailable(wrapped(code))).toBe(false);
  });
});
