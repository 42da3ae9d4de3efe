import { describe, expect, test } from "bun:test";
import { JSON_CONTENT_TYPE } from "../src/content-types.ts";
import { ApiError } from "../src/errors.ts";
import { errorResponse } from "../src/http/error-response.ts";
import { readiness, readinessResponse } from "../src/service.ts";

/** Errors and readiness say JSON's `Content-Type` as every other JSON answer does. */
describe("JSON answers' Content-Type", () => {
  test("an error answer: the one spelling, its status and headers kept", async () => {
    const answer = errorResponse(
      new ApiError("method_not_allowed", undefined, { headers: { allow: "GET" } }),
      "req_1",
    );
    expect(JSON_CONTENT_TYPE).toBe("application/json; charset=utf-8");
    expect(answer.headers.get("content-type")).toBe(JSON_CONTENT_TYPE);
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET");
    expect((await answer.json()).error.code).toBe("method_not_allowed");
  });

  test("readiness: the one spelling", async () => {
    const answer = await readinessResponse(readiness([]))();
    expect(answer.headers.get("content-type")).toBe(JSON_CONTENT_TYPE);
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });
});
