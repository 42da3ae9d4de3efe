import { httpKit } from "@newsroom/shared/http";
import { Elysia } from "elysia";

/** The read-only client API: stories, approvals, feeds, webhook endpoints and deliveries. */
export function createClientApiApp() {
  const kit = httpKit("client-api");
  const app = new Elysia({ name: "client-api" }).use(kit);
  kit.bindRoutes(app);
  return app;
}
