import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import {
  addIncidentUpdate,
  createIncident,
  findIncident,
  type IncidentInput,
  type StatusWriteContext,
  type UpdateInput,
} from "./incidents.ts";
import { incidentJson, incidentWithUpdates } from "./json.ts";

/**
 * The status page's internal API (operators, with ADMIN_TOKEN): open an incident or schedule a
 * maintenance, post an update. Staff do the same in the web app (`/app/status`).
 */
export function statusInternalRoutes(context: StatusWriteContext) {
  return new Elysia()
    .post("/internal/v1/status/incidents", async ({ body, set }) => {
      const { incident } = await createIncident(context, (body ?? {}) as IncidentInput, "admin");
      set.status = 201;
      return incidentJson(await withUpdates(context, incident.id), context.publicBaseUrl);
    })
    .get("/internal/v1/status/incidents/:id", async ({ params }) =>
      incidentJson(await withUpdates(context, params.id), context.publicBaseUrl),
    )
    .post("/internal/v1/status/incidents/:id/updates", async ({ params, body, set }) => {
      await addIncidentUpdate(context, params.id, (body ?? {}) as UpdateInput, "admin");
      set.status = 201;
      return incidentJson(await withUpdates(context, params.id), context.publicBaseUrl);
    });
}

async function withUpdates(context: StatusWriteContext, id: string) {
  const found = await findIncident(context.db, id);
  if (!found) throw new ApiError("not_found", "No such incident.");
  return incidentWithUpdates(context.db, found);
}
