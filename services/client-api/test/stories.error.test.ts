import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ErrorOut } from "@newsroom/shared/records";
import { clientApiFixture, errorShape, expectShape, type Fixture } from "./support/fixture.ts";

let f: Fixture;
beforeAll(async () => {
  f = await clientApiFixture();
});
afterAll(async () => {
  await f.close();
});

async function invalid(
  path: string,
  key = f.a.key,
): Promise<{ field: string; message?: string }[]> {
  const response = await f.get(path, { key });
  expect(response.status).toBe(400);
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  const body = await response.json();
  expectShape(ErrorOut, body);
  expect(body.error.code).toBe("invalid_parameters");
  expect(body.error.type).toBe("invalid_request");
  return body.error.fields;
}

async function cursorOf(path: string, key = f.a.key): Promise<string> {
  const body = await (await f.get(path, { key })).json();
  expect(body.next_cursor).toBeString();
  return body.next_cursor;
}

describe("400 invalid_parameters", () => {
  test("an unknown status is named in error.fields", async () => {
    const fields = await invalid("/v1/stories?status=published,bogus");
    expect(fields.map((x) => x.field)).toEqual(["status"]);
    expect(fields[0]!.message).toContain('"bogus"');
    expect((await invalid("/v1/stories?status=")).map((x) => x.field)).toEqual(["status"]);
    expect((await invalid("/v1/stories?status=published,")).map((x) => x.field)).toEqual([
      "status",
    ]);
    expect((await invalid(`/v1/stories?status=${"draft,".repeat(40)}draft`))[0]!.field).toBe(
      "status",
    );
  });

  for (const limit of ["0", "101", "-1", "abc", "1.5", "1e1", "", "25x", "%2025"]) {
    test(`limit=${JSON.stringify(limit)} is refused`, async () => {
      for (const path of ["/v1/stories", "/v1/approvals", "/v1/webhook_deliveries"]) {
        expect(await invalid(`${path}?limit=${limit}`)).toEqual([
          expect.objectContaining({ field: "limit", reason: "invalid" }),
        ]);
      }
    });
  }

  test("limit 1 and 100 are the bounds", async () => {
    expect((await f.get("/v1/stories?limit=1", { key: f.a.key })).status).toBe(200);
    expect((await f.get("/v1/stories?limit=100", { key: f.a.key })).status).toBe(200);
  });

  test("every bad parameter is named at once", async () => {
    const fields = await invalid("/v1/stories?status=nope&limit=0&cursor=***");
    expect(fields.map((x) => x.field).sort()).toEqual(["cursor", "limit", "status"]);
  });

  test("a parameter given twice is refused", async () => {
    expect((await invalid("/v1/stories?limit=5&limit=6"))[0]).toMatchObject({
      field: "limit",
      reason: "repeated",
    });
  });

  test("malformed, truncated, forged and oversized cursors", async () => {
    const real = await cursorOf("/v1/stories?limit=1");
    const flipped = `${real.slice(0, 20)}${real[20] === "A" ? "B" : "A"}${real.slice(21)}`;
    for (const cursor of [
      "not+base64",
      real.slice(0, -2),
      `${real}AA`,
      flipped,
      "A".repeat(201),
      "A".repeat(56),
      Buffer.from(JSON.stringify({ updated_at: "2020-01-01", id: f.a.decided })).toString(
        "base64url",
      ),
    ]) {
      const fields = await invalid(`/v1/stories?cursor=${encodeURIComponent(cursor)}`);
      expect(fields.map((x) => x.field)).toEqual(["cursor"]);
    }
  });

  test("another organization's cursor is refused, not read", async () => {
    const bravo = await cursorOf("/v1/stories?limit=1", f.b.key);
    expect((await invalid(`/v1/stories?cursor=${bravo}`)).map((x) => x.field)).toEqual(["cursor"]);
    // and it still works for its own organization
    expect((await f.get(`/v1/stories?cursor=${bravo}`, { key: f.b.key })).status).toBe(200);
  });

  test("a cursor of one list is refused by another", async () => {
    const stories = await cursorOf("/v1/stories?limit=1");
    expect((await invalid(`/v1/approvals?cursor=${stories}`))[0]!.field).toBe("cursor");
    expect((await invalid(`/v1/webhook_deliveries?cursor=${stories}`))[0]!.field).toBe("cursor");
    const deliveries = await cursorOf("/v1/webhook_deliveries?limit=1");
    expect((await invalid(`/v1/stories?cursor=${deliveries}`))[0]!.field).toBe("cursor");
  });

  test("a malformed story id is 400 naming id", async () => {
    for (const id of ["not-a-uuid", "1234", `${f.a.decided}x`]) {
      expect((await invalid(`/v1/stories/${id}`)).map((x) => x.field)).toEqual(["id"]);
    }
  });

  test("parameters the route does not know are ignored", async () => {
    const response = await f.get("/v1/stories?expand=everything&limit=2", { key: f.a.key });
    expect(response.status).toBe(200);
    expect((await response.json()).data).toHaveLength(2);
  });
});

describe("404 not_found", () => {
  test("an unknown id, another organization's story and an idle newsroom's story answer alike", async () => {
    const missing = await f.get("/v1/stories/00000000-0000-4000-8000-000000000000", {
      key: f.a.key,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBe("private, no-store");
    const shape = await errorShape(missing);
    expect(shape.error.code).toBe("not_found");
    const other = await f.get(`/v1/stories/${f.b.decided}`, { key: f.a.key });
    expect(await errorShape(other)).toEqual(shape);
    const idle = await f.get(`/v1/stories/${f.idle.decided}`, { key: f.idle.key });
    expect(await errorShape(idle)).toEqual(shape);
  });
});

describe("other methods", () => {
  test("POST on a client-API path is 405 with Allow, still private", async () => {
    const response = await f.api.app.handle(
      new Request("http://localhost/v1/stories", {
        method: "POST",
        headers: { authorization: `Bearer ${f.a.key}` },
      }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
    expect(response.headers.get("cache-control")).toBe("private, no-store");
  });
});
