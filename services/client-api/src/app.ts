import { httpKit } from "@newsroom/shared/http";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";

/** The read-only client API: stories, approvals, feeds, webhook endpoints and deliveries. */
export async function createClientApiService(runtime: Runtime): Promise<ServiceHandle> {
  const kit = httpKit("client-api");
  const app = new Elysia({ name: "client-api" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "client-api" }));
  kit.bindRoutes(app);
  return {
    name: "client-api",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {},
  };
}
