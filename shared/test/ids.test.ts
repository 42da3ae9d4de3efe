import { expect, test } from "bun:test";
import { newRequestId } from "../src/ids.ts";

test("request ids keep their shape and never repeat, across refills of their random pool", () => {
  const ids = Array.from({ length: 5_000 }, () => newRequestId());
  for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
  expect(new Set(ids).size).toBe(ids.length);
});
