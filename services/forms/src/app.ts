import { httpKit } from "@newsroom/shared/http";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";

/** Website forms, the digest and organization newsletters, embed.js. */
export async function createFormsService(runtime: Runtime): Promise<ServiceHandle> {
  const kit = httpKit("forms");
  const app = new Elysia({ name: "forms" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "forms" }));
  kit.bindRoutes(app);
  return {
    name: "forms",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {},
  };
}
