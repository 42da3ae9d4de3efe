import { httpKit } from "@newsroom/shared/http";
import { Elysia } from "elysia";

/** Website forms, the digest and organization newsletters, embed.js. */
export function createFormsApp() {
  const kit = httpKit("forms");
  const app = new Elysia({ name: "forms" }).use(kit);
  kit.bindRoutes(app);
  return app;
}
