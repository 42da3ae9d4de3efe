import { describe, expect, test } from "bun:test";
import { ApiError } from "@newsroom/shared/errors";
import { checkCsrf, csrfKey, csrfToken } from "../src/web/csrf.ts";

const APP = "https://app.example.test";
const token = csrfToken(csrfKey(Buffer.alloc(32, 9)), "session-1");

function post(headers: Record<string, string>): Request {
  return new Request(`${APP}/app/settings`, { method: "POST", headers });
}

function refusal(request: Request, presented: string | null = token): string | null {
  try {
    checkCsrf(request, presented, token, APP);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("forbidden");
    return (error as ApiError).message;
  }
}

describe("the workspace's form-post check", () => {
  test("the app's Origin, or without Origin its Referer, with the token passes", () => {
    expect(refusal(post({ origin: APP }))).toBeNull();
    expect(refusal(post({ referer: `${APP}/app/settings` }))).toBeNull();
    expect(refusal(post({}))).toBeNull();
  });

  test("`Origin: null` is refused, even with the app's Referer and a good token", () => {
    expect(refusal(post({ origin: "null", referer: `${APP}/app/settings` }))).toContain(
      "another site",
    );
    expect(refusal(post({ origin: "null" }))).toContain("another site");
  });

  test("another origin, or the app's with a wrong token, is refused", () => {
    expect(refusal(post({ origin: "https://evil.example", referer: `${APP}/x` }))).not.toBeNull();
    expect(refusal(post({ origin: APP }), "forged")).toContain("expired");
  });
});
