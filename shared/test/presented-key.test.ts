import { describe, expect, test } from "bun:test";
import { presentedKey } from "../src/presented-key.ts";

const KEY = `armk_test_${"a".repeat(43)}`;

function withHeader(authorization: string, url = "http://localhost/v1/stories"): Request {
  return new Request(url, { headers: { authorization } });
}

describe("the presented key", () => {
  test("the Bearer scheme in any case, with one or more spaces before the key", () => {
    for (const header of [`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER ${KEY}`, `Bearer   ${KEY}`]) {
      expect(presentedKey(withHeader(header), false)).toEqual({
        ok: true,
        key: KEY,
        source: "header",
      });
    }
    // Spaces or tabs at either end are the header's optional whitespace, not part of it.
    expect(presentedKey(withHeader(`bEaReR  ${KEY} \t`), false)).toMatchObject({ key: KEY });
  });

  test("the Bearer scheme with a tab or another space character before the key is invalid", () => {
    for (const header of [
      `Bearer\t${KEY}`,
      `Bearer \t${KEY}`,
      `Bearer\v${KEY}`,
      `Bearer\u00a0${KEY}`,
    ]) {
      expect(presentedKey(withHeader(header), false)).toEqual({
        ok: false,
        code: "invalid_api_key",
      });
    }
  });

  test("another scheme, no key or two words are missing keys", () => {
    for (const header of [`Basic ${KEY}`, "Bearer", "Bearer ", `Bearer${KEY}`, `Bearer ${KEY} x`]) {
      expect(presentedKey(withHeader(header), false)).toEqual({
        ok: false,
        code: "missing_api_key",
      });
    }
    expect(presentedKey(new Request("http://localhost/v1/stories"), false)).toMatchObject({
      code: "missing_api_key",
    });
  });

  test("`?key=` is the credential where allowed, refused elsewhere and when repeated", () => {
    const feed = withHeader("Bearer other", `http://localhost/v1/feed.json?key=${KEY}`);
    expect(presentedKey(feed, true)).toEqual({ ok: true, key: KEY, source: "query" });
    expect(presentedKey(feed, false)).toEqual({ ok: false, code: "invalid_api_key" });
    const twice = new Request(`http://localhost/v1/feed.json?key=${KEY}&key=${KEY}`);
    expect(presentedKey(twice, true)).toEqual({ ok: false, code: "invalid_api_key" });
  });

  test("a `key` parameter is found however its name is escaped, and only a `key` is", () => {
    const header = `Bearer ${KEY}`;
    for (const query of [`k%65y=${KEY}`, `%6B%65%79=${KEY}`, `limit=1&key=${KEY}`]) {
      const url = `http://localhost/v1/feed.json?${query}`;
      expect(presentedKey(withHeader(header, url), true)).toMatchObject({ source: "query" });
      expect(presentedKey(withHeader(header, url), false)).toMatchObject({ ok: false });
    }
    for (const query of ["limit=25", "keys=1", "k+ey=1", "KEY=1", "monkey=1&cursor=a%2Fb"]) {
      const url = `http://localhost/v1/stories?${query}`;
      expect(presentedKey(withHeader(header, url), false)).toEqual({
        ok: true,
        key: KEY,
        source: "header",
      });
    }
  });
});
