import { httpKit } from "@newsroom/shared/http";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";

/** The webhook dispatcher: fans story events out to endpoints, signs, delivers, retries. */
export async function createWebhooksService(runtime: Runtime): Promise<ServiceHandle> {
  const kit = httpKit("webhooks");
  const app = new Elysia({ name: "webhooks" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "webhooks" }));
  kit.bindRoutes(app);
  return {
    name: "webhooks",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {},
  };
}
