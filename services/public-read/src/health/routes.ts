import { type ReadinessCheck, readiness, readinessResponse } from "@newsroom/shared/service";
import { SERVICE_VERSION } from "@newsroom/shared/version";
import { Elysia } from "elysia";

/**
 * `/health` (version, whether a database is configured) and `/health/ready` (the database
 * answers and the public read path works; cached 15 s; never cached by others).
 */
export function healthRoutes(options: {
  databaseKind: "postgres" | "pglite";
  checks: ReadinessCheck[];
}) {
  const ready = readinessResponse(readiness(options.checks));
  return new Elysia({ name: "public-read:health" })
    .get("/health", () => ({
      status: "ok",
      service: "public-read",
      version: SERVICE_VERSION,
      database: options.databaseKind === "postgres" ? "postgres" : "embedded",
      database_configured: true,
    }))
    .get("/health/ready", () => ready());
}
