import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { workspaceMemberships, workspacePeople } from "@newsroom/shared/db/schema";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eq } from "drizzle-orm";
import { seedDemo } from "../src/demo/seed.ts";

/** The demo data has people: a staff owner of the house organization, and the client's team. */
describe("demo people", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await testDatabase({ backend: "pglite" });
  });
  afterAll(() => database?.close());

  const roles = async () =>
    (
      await database.db
        .select({ email: workspacePeople.email, role: workspaceMemberships.role })
        .from(workspaceMemberships)
        .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
    )
      .map((row) => `${row.email} ${row.role}`)
      .sort();

  const expected = [
    "approver@northwind.example approver",
    "editor@northwind.example editor",
    "owner@northwind.example owner",
    "staff@armage.example owner",
  ];

  test("a fresh seed makes them and returns them for the start banner", async () => {
    const demo = await seedDemo(database.db, "armage", "development");
    expect(demo.seeded).toBe(true);
    expect(demo.people?.map((p) => `${p.email} ${p.role} ${p.org}`).sort()).toEqual([
      "approver@northwind.example approver northwind",
      "editor@northwind.example editor northwind",
      "owner@northwind.example owner northwind",
      "staff@armage.example owner armage",
    ]);
    expect(await roles()).toEqual(expected);
  });

  test("seeding again changes nothing", async () => {
    const again = await seedDemo(database.db, "armage", "development");
    expect(again).toEqual({ seeded: false, people: [] });
    expect(await roles()).toEqual(expected);
  });

  test("a demo database from before people existed gets them once", async () => {
    await database.db.delete(workspaceMemberships);
    const backfilled = await seedDemo(database.db, "armage", "development");
    expect(backfilled.people).toHaveLength(4);
    expect(await roles()).toEqual(expected);
    expect((await seedDemo(database.db, "armage", "development")).people).toEqual([]);
  });
});
