import { describe, expect, test } from "bun:test";
import { KeyCreateIn } from "../src/keys/model.ts";
import { SiteCreateIn } from "../src/sites/model.ts";
import { decodeForm } from "../src/web/form-decode.ts";
import { FormFields } from "../src/web/kit.ts";

function form(entries: [string, string][]): FormFields {
  const data = new FormData();
  for (const [name, value] of entries) data.append(name, value);
  return new FormFields(data);
}

describe("a web form decoded with its API route's schema", () => {
  test("repeated fields become an array (each value once), numbers numbers", () => {
    const decoded = decodeForm(
      form([
        ["environment", "test"],
        ["scopes", "stories:read"],
        ["scopes", "stories:read"],
        ["scopes", "feed:read"],
        ["lifetime_days", "90"],
        ["_csrf", "ignored"],
      ]),
      KeyCreateIn,
    );
    expect(decoded).toEqual({
      ok: true,
      value: { environment: "test", scopes: ["stories:read", "feed:read"], lifetime_days: 90 },
      given: { environment: "test", scopes: ["stories:read", "feed:read"], lifetime_days: 90 },
    });
  });

  test("what the schema refuses is named per field, in the page's wording where it has one", () => {
    const decoded = decodeForm(
      form([
        ["environment", "staging"],
        ["lifetime_days", "45"],
      ]),
      KeyCreateIn,
      { wording: { scopes: "Choose at least one scope." } },
    );
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(Object.keys(decoded.errors).sort()).toEqual(["environment", "lifetime_days", "scopes"]);
    expect(decoded.errors.scopes).toBe("Choose at least one scope.");
    expect(decoded.errors.lifetime_days).toBeString();
  });

  test("an unknown scope is refused as the API refuses it", () => {
    const decoded = decodeForm(
      form([
        ["environment", "test"],
        ["scopes", "everything"],
        ["lifetime_days", "30"],
      ]),
      KeyCreateIn,
    );
    expect(decoded.ok ? [] : Object.keys(decoded.errors)).toEqual(["scopes"]);
  });

  test("booleans from yes/no, empty optional fields left to their defaults, prepare before checking", () => {
    const decoded = decodeForm(
      form([
        ["site", "Press-Room"],
        ["name", "Press room"],
        ["publisher", "Acme"],
        ["accent", ""],
        ["enabled", "yes"],
        ["live", "no"],
      ]),
      SiteCreateIn,
      {
        prepare: (given) => {
          given.site = String(given.site).toLowerCase();
        },
      },
    );
    expect(decoded).toMatchObject({
      ok: true,
      value: {
        site: "press-room",
        name: "Press room",
        publisher: "Acme",
        enabled: true,
        live: false,
      },
    });
    expect(decoded.given).not.toHaveProperty("accent");
  });

  test("a required text field left empty is refused, not left out", () => {
    const decoded = decodeForm(
      form([
        ["site", "newsroom"],
        ["publisher", "Acme"],
      ]),
      SiteCreateIn,
      {
        wording: { name: "Enter the site's name." },
      },
    );
    expect(decoded.ok ? {} : decoded.errors).toEqual({ name: "Enter the site's name." });
  });
});
