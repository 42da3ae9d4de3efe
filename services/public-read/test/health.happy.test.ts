import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SERVICE_VERSION } from "@newsroom/shared/version";
import { buildWorld, type World } from "./support/world.ts";

const SLOW = 60_000;
let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

describe("health", () => {
  test("/health reports the version and whether a database is configured", async () => {
    const answer = await world.get("/health");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: "ok",
      service: "public-read",
      version: SERVICE_VERSION,
      database: world.database.kind === "postgres" ? "postgres" : "embedded",
      database_configured: true,
    });
  });

  test("/health/ready checks the database and the public read path, never cached by others", async () => {
    const answer = await world.get("/health/ready");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body).toEqual({
      status: "ready",
      checks: { database: "ok", read_path: "ok" },
    });
    expect(world.service.readiness.map((check) => check.name)).toEqual(["database", "read_path"]);
    for (const check of world.service.readiness) await check.check();
  });
});
