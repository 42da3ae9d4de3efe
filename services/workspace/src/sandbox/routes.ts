import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { seedSandbox } from "./service.ts";

export function sandboxRoutes(deps: WorkspaceDeps) {
  return new Elysia().post(
    "/internal/v1/orgs/:org/sandbox-seed",
    async ({ params, body }) => {
      const created = await seedSandbox(deps.db, params.org, body?.count ?? 40, deps.serviceEnv);
      return { object: "sandbox_seed" as const, stories_created: created };
    },
    { body: t.Optional(t.Object({ count: t.Optional(t.Integer({ minimum: 1, maximum: 500 })) })) },
  );
}
