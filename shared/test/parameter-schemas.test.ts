import { describe, expect, test } from "bun:test";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { explained, QueryInteger, refined } from "@newsroom/shared/parameter-schemas";
import { Type as T } from "@sinclair/typebox";
import { Elysia } from "elysia";

/**
 * A route's query and path schemas, validated by Elysia and answered by the kit: every bad
 * parameter named at once in `error.fields`, in the schema's words.
 */
const Query = T.Object({
  kind: T.Optional(
    explained(T.String({ pattern: "^(?:a|b)$" }), (given) => `Unknown kind ${String(given)}.`),
  ),
  limit: T.Optional(QueryInteger({ minimum: 1, maximum: 100, default: 25 })),
  cursor: T.Optional(
    refined(
      "TestEvenCursor",
      T.String({ pattern: "^[0-9]{1,4}$" }),
      (value) => Number(value) % 2 === 0,
      "Pass back a next_cursor unchanged.",
    ),
  ),
});

function app() {
  const kit = httpKit("parameter-schemas-test");
  const built = new Elysia()
    .use(kit)
    .get("/items", ({ query }) => ({ query }), { query: Query })
    .get("/items/:id", ({ params }) => ({ params }), {
      params: T.Object({
        id: explained(T.String({ pattern: "^[0-9]+$" }), () => "Expected a number."),
      }),
    });
  kit.bindRoutes(built);
  return built;
}

const items = app();

async function get(target: string) {
  const response = await items.handle(new Request(`http://localhost${target}`));
  return { status: response.status, body: await response.json() };
}

async function fields(target: string) {
  const { status, body } = await get(target);
  expect(status, target).toBe(400);
  expect(body.error.code).toBe("invalid_parameters");
  return body.error.fields as { field: string; reason: string; message: string }[];
}

describe("query integers", () => {
  test("plain digits within the bounds reach the route as numbers; the default fills in", async () => {
    expect((await get("/items?limit=7")).body.query).toEqual({ limit: 7 });
    expect((await get("/items?limit=100")).body.query).toEqual({ limit: 100 });
    expect((await get("/items")).body.query).toEqual({ limit: 25 });
  });

  for (const given of ["1e1", "%2025", "+5", "0x10", "1.5", "", "abc", "-1"]) {
    test(`limit=${given} is not an integer`, async () => {
      expect(await fields(`/items?limit=${given}`)).toEqual([
        { field: "limit", reason: "invalid", message: "Expected an integer." },
      ]);
    });
  }

  test("out of bounds says which bound", async () => {
    expect((await fields("/items?limit=0"))[0]!.message).toBe(
      "Expected integer to be greater or equal to 1",
    );
    expect((await fields("/items?limit=101"))[0]!.message).toBe(
      "Expected integer to be less or equal to 100",
    );
  });
});

describe("explained and refined schemas", () => {
  test("a schema's own wording is the field's message, also for a path parameter", async () => {
    expect(await fields("/items?kind=c")).toEqual([
      { field: "kind", reason: "invalid", message: "Unknown kind c." },
    ]);
    expect(await fields("/items/x1")).toEqual([
      { field: "id", reason: "invalid", message: "Expected a number." },
    ]);
  });

  test("a refinement fails in its own words, the schema it refines in the schema's", async () => {
    expect((await fields("/items?cursor=3"))[0]!.message).toBe(
      "Pass back a next_cursor unchanged.",
    );
    expect((await fields("/items?cursor=x"))[0]!.message).toBe(
      "Expected string to match '^[0-9]{1,4}$'",
    );
    expect((await get("/items?cursor=4")).body.query).toEqual({ cursor: "4", limit: 25 });
  });
});

describe("a parameter given twice", () => {
  test("is refused even when every value is valid", async () => {
    expect(await fields("/items?limit=5&limit=6")).toEqual([
      { field: "limit", reason: "repeated", message: "Give this parameter once." },
    ]);
  });

  test("is named beside every other bad parameter, in the schema's order", async () => {
    const named = await fields("/items?cursor=x&limit=5&limit=abc&kind=c");
    expect(named.map(({ field, reason }) => [field, reason])).toEqual([
      ["kind", "invalid"],
      ["limit", "repeated"],
      ["cursor", "invalid"],
    ]);
  });

  test("a parameter the schema does not name is ignored, repeated or not", async () => {
    expect((await get("/items?expand=1&expand=2")).status).toBe(200);
  });
});
