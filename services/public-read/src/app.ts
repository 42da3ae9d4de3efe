import { httpKit } from "@newsroom/shared/http";
import { Elysia } from "elysia";

/** Public news reads, hosted newsrooms, hostnames, sitemaps, search documents, checkout. */
export function createPublicReadApp() {
  const kit = httpKit("public-read");
  const app = new Elysia({ name: "public-read" }).use(kit);
  kit.bindRoutes(app);
  return app;
}
