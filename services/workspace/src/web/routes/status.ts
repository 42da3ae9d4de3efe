import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { personActor } from "../../audit.ts";
import { addIncidentUpdate, createIncident, findIncident } from "../../status/incidents.ts";
import { incidentWithUpdates } from "../../status/json.ts";
import { COMPONENTS, type IncidentKind } from "../../status/model.ts";
import { setComponentOverride } from "../../status/overrides.ts";
import type { StatusModule } from "../../status/public-routes.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import type { FormFields, SignedInVisitor, WebKit } from "../kit.ts";
import {
  type FieldErrors,
  newIncidentPage,
  staffIncidentPage,
  statusOverviewPage,
} from "../pages/status.ts";

/** The components a form names (`component_{id}` = a state), in the page's order. */
function componentsOf(form: FormFields): { id: string; status: string }[] {
  return COMPONENTS.flatMap((component) => {
    const status = form.text(`component_${component.id}`, 40);
    return status ? [{ id: component.id, status }] : [];
  });
}

/** A `datetime-local` value is UTC on these pages; one with an offset keeps it. */
function utc(value: string): string {
  if (!value) return value;
  return /(?:Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
}

/** A refusal's field errors by field (a component's error under `components`); else rethrown. */
function fieldErrorsOf(error: unknown): FieldErrors {
  if (!(error instanceof ApiError) || error.code !== "validation_failed") throw error;
  const errors: FieldErrors = {};
  for (const field of error.fields ?? []) {
    const name = field.field.startsWith("components") ? "components" : field.field;
    errors[name] ??= field.message ?? field.reason;
  }
  return errors;
}

/**
 * The status page's staff pages (owners and admins of HOUSE_ORG; anyone else gets 404): the
 * components and their overrides, incidents and maintenance, their updates.
 */
export function statusWebRoutes(deps: WebDeps, status: StatusModule, kit: WebKit) {
  async function staff(request: Request): Promise<SignedInVisitor> {
    const who = await kit.signedIn(request);
    if (!(await kit.staffRole(who))) throw new ApiError("not_found");
    return who;
  }
  const actorOf = (who: SignedInVisitor) => personActor(who.signedIn.person.id);
  async function entryOf(id: string) {
    const incident = await findIncident(deps.db, id);
    if (!incident) throw new ApiError("not_found", "No such incident.");
    return incidentWithUpdates(deps.db, incident);
  }

  return new Elysia({ name: "status-staff" })
    .get("/app/status", async ({ request }) => {
      const who = await staff(request);
      status.snapshots.invalidate();
      return kit.page(who, statusOverviewPage(who, await status.snapshots.get()));
    })
    .post(
      "/app/status/components/:id/override",
      async ({ request, params }) => {
        const who = await staff(request);
        const form = await kit.form(request, who);
        await setComponentOverride(
          deps.db,
          deps.houseOrg,
          params.id,
          { state: form.text("state", 40), note: form.text("note", 1000) },
          actorOf(who),
        );
        status.snapshots.invalidate();
        return kit.redirect(withDone("/app/status", "status-component-saved"));
      },
      { parse: "none" },
    )
    .get("/app/status/incidents/new", async ({ request }) => {
      const who = await staff(request);
      const kind: IncidentKind =
        new URL(request.url).searchParams.get("kind") === "maintenance"
          ? "maintenance"
          : "incident";
      return kit.page(
        who,
        newIncidentPage(
          who,
          {
            kind,
            name: "",
            impact: kind === "maintenance" ? "maintenance" : "minor",
            status: kind === "maintenance" ? "scheduled" : "investigating",
            body: "",
            scheduled_for: "",
            scheduled_until: "",
            components: new Map(),
          },
          {},
        ),
      );
    })
    .post(
      "/app/status/incidents",
      async ({ request }) => {
        const who = await staff(request);
        const form = await kit.form(request, who);
        const kind: IncidentKind = form.text("kind") === "maintenance" ? "maintenance" : "incident";
        const components = componentsOf(form);
        const input = {
          kind,
          name: form.text("name", 1000),
          impact: form.text("impact", 40),
          status: form.text("status", 40),
          body: form.text("body", 20_000),
          scheduled_for: form.text("scheduled_for", 40),
          scheduled_until: form.text("scheduled_until", 40),
        };
        try {
          const { incident } = await createIncident(
            status.write,
            {
              ...input,
              scheduled_for: utc(input.scheduled_for),
              scheduled_until: utc(input.scheduled_until),
              components,
            },
            actorOf(who),
          );
          status.snapshots.invalidate();
          return kit.redirect(withDone(`/app/status/incidents/${incident.id}`, "status-posted"));
        } catch (error) {
          const errors = fieldErrorsOf(error);
          const chosen = new Map(components.map((c) => [c.id, c.status]));
          return kit.page(who, newIncidentPage(who, { ...input, components: chosen }, errors), 422);
        }
      },
      { parse: "none" },
    )
    .get("/app/status/incidents/:id", async ({ request, params }) => {
      const who = await staff(request);
      const entry = await entryOf(params.id);
      const chosen = new Map(entry.incident.components.map((c) => [c.id, c.status]));
      return kit.page(
        who,
        staffIncidentPage(
          who,
          entry,
          { status: entry.incident.status, body: "", components: chosen },
          {},
        ),
      );
    })
    .post(
      "/app/status/incidents/:id/updates",
      async ({ request, params }) => {
        const who = await staff(request);
        const form = await kit.form(request, who);
        const entry = await entryOf(params.id);
        const components = componentsOf(form);
        const values = { status: form.text("status", 40), body: form.text("body", 20_000) };
        // Resolving with the components as they were: back to operational (the service's rule).
        const unchanged =
          JSON.stringify(components) === JSON.stringify(entry.incident.components) ||
          components.length === 0;
        try {
          await addIncidentUpdate(
            status.write,
            params.id,
            { ...values, components: unchanged ? undefined : components },
            actorOf(who),
          );
          status.snapshots.invalidate();
          return kit.redirect(withDone(`/app/status/incidents/${params.id}`, "status-posted"));
        } catch (error) {
          const errors = fieldErrorsOf(error);
          const chosen = new Map(components.map((c) => [c.id, c.status]));
          return kit.page(
            who,
            staffIncidentPage(who, entry, { ...values, components: chosen }, errors),
            422,
          );
        }
      },
      { parse: "none" },
    );
}
