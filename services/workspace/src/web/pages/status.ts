import { type Html, html } from "@newsroom/shared/html";
import type { IncidentWithUpdates } from "../../status/json.ts";
import {
  COMPONENT_STATES,
  COMPONENTS,
  IMPACTS,
  INCIDENT_STATUSES,
  type IncidentKind,
  isClosedStatus,
  MAINTENANCE_STATUSES,
  STATE_LABELS,
  STATUS_LABELS,
} from "../../status/model.ts";
import { dateTimeText } from "../../status/page.ts";
import type { ComponentView, ServedSnapshot } from "../../status/snapshot.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";

/** The staff pages of the status page: components and their overrides, incidents, updates. */

export type FieldErrors = Record<string, string>;

function errorOf(errors: FieldErrors, name: string): Html {
  return errors[name]
    ? html`<p class="error" id="field-${name}-error">${errors[name]}</p>`
    : html``;
}

function describedBy(errors: FieldErrors, name: string): Html {
  return errors[name] ? html` aria-invalid="true" aria-describedby="field-${name}-error"` : html``;
}

function options(
  values: readonly string[],
  labels: Record<string, string>,
  chosen: string,
): Html[] {
  return values.map(
    (value) =>
      html`<option value="${value}"${value === chosen ? html` selected` : ""}>${labels[value] ?? value}</option>`,
  );
}

function select(
  name: string,
  label: string,
  values: readonly string[],
  labels: Record<string, string>,
  chosen: string,
  errors: FieldErrors,
): Html {
  return html`<div class="field${errors[name] ? " has-error" : ""}">
  <label for="field-${name}">${label}</label>
  <select id="field-${name}" name="${name}"${describedBy(errors, name)}>${options(values, labels, chosen)}</select>
  ${errorOf(errors, name)}
</div>`;
}

function textarea(
  name: string,
  label: string,
  value: string,
  errors: FieldErrors,
  hint?: string,
): Html {
  const described = [hint ? `field-${name}-hint` : "", errors[name] ? `field-${name}-error` : ""]
    .filter(Boolean)
    .join(" ");
  return html`<div class="field${errors[name] ? " has-error" : ""}">
  <label for="field-${name}">${label}</label>
  ${hint ? html`<p class="hint" id="field-${name}-hint">${hint}</p>` : ""}
  <textarea id="field-${name}" name="${name}" rows="5"${described ? html` aria-describedby="${described}"` : ""}${
    errors[name] ? html` aria-invalid="true"` : ""
  }>${value}</textarea>
  ${errorOf(errors, name)}
</div>`;
}

const NOT_AFFECTED: Record<string, string> = { "": "Not affected", ...STATE_LABELS };

/** One select per component: not affected, or the state this incident puts it in. */
function componentChoices(chosen: Map<string, string>, errors: FieldErrors): Html {
  return html`<fieldset class="choices${errors.components ? " has-error" : ""}"${
    errors.components ? html` aria-describedby="field-components-error"` : ""
  }>
  <legend>Affected components</legend>
  ${COMPONENTS.map(
    (component) => html`<div class="field">
    <label for="field-component-${component.id}">${component.name}</label>
    <select id="field-component-${component.id}" name="component_${component.id}">${options(
      ["", ...COMPONENT_STATES],
      NOT_AFFECTED,
      chosen.get(component.id) ?? "",
    )}</select></div>`,
  )}
  ${errorOf(errors, "components")}
</fieldset>`;
}

function overrideForm(who: Visitor, component: ComponentView): Html {
  const id = component.id;
  return html`<form method="post" action="/app/status/components/${id}/override" class="stack">${csrfInput(who)}
  <div class="field"><label for="override-${id}">Show ${component.name} as</label>
  <select id="override-${id}" name="state">${options(
    ["", ...COMPONENT_STATES],
    { "": "What the probes say", ...STATE_LABELS },
    component.overrideState ?? "",
  )}</select></div>
  <div class="field"><label for="override-note-${id}">Note shown on the page</label>
  <input id="override-note-${id}" name="note" type="text" value="${component.overrideNote ?? ""}"></div>
  <button type="submit" class="secondary">Save ${component.name}</button>
</form>`;
}

function incidentRows(entries: IncidentWithUpdates[]): Html {
  if (entries.length === 0) return html`<p>None.</p>`;
  return html`<table><caption class="visually-hidden">Incidents and maintenance, newest first</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Impact</th><th scope="col">Opened</th></tr></thead>
<tbody>${entries.map(
    ({
      incident,
    }) => html`<tr><td><a href="/app/status/incidents/${incident.id}">${incident.name}</a></td>
<td>${STATUS_LABELS[incident.status] ?? incident.status}</td><td>${incident.impact}</td>
<td>${dateTimeText(incident.createdAt)}</td></tr>`,
  )}</tbody></table>`;
}

export function statusOverviewPage(who: Visitor, served: ServedSnapshot): Html {
  const snapshot = served.snapshot;
  if (!snapshot) {
    return layout(
      who,
      "Status page",
      notice("error", "The database cannot be reached; try again shortly."),
    );
  }
  const all = [...snapshot.incidents, ...snapshot.maintenances].sort(
    (a, b) => b.incident.createdAt.getTime() - a.incident.createdAt.getTime(),
  );
  const open = all.filter((entry) => !isClosedStatus(entry.incident.status));
  const closed = all.filter((entry) => isClosedStatus(entry.incident.status)).slice(0, 20);
  return layout(
    who,
    "Status page",
    html`<p>The public page: <a href="/status">/status</a>. ${snapshot.description}.</p>
<p><a class="button" href="/app/status/incidents/new">Open an incident</a>
<a class="button secondary" href="/app/status/incidents/new?kind=maintenance">Schedule maintenance</a></p>
<h2>Open incidents and maintenance</h2>
${incidentRows(open)}
<h2>Components</h2>
<table><caption class="visually-hidden">Components: what the probes say and what the page shows</caption>
<thead><tr><th scope="col">Component</th><th scope="col">Probes</th><th scope="col">Shown</th><th scope="col">Last probe</th></tr></thead>
<tbody>${snapshot.components.map(
      (component) => html`<tr><td>${component.name}</td>
<td>${STATE_LABELS[component.derivedState]}${component.detail ? html`<br><span class="hint">${component.detail}</span>` : ""}</td>
<td>${STATE_LABELS[component.state]}${component.overrideState ? " (set by staff)" : ""}</td>
<td>${component.checkedAt ? dateTimeText(component.checkedAt) : "Not yet"}</td></tr>`,
    )}</tbody></table>
<h2>Set a component's state</h2>
<p>What staff set is shown instead of what the probes say, until set back to "What the probes say".</p>
${snapshot.components.map((component) => overrideForm(who, component))}
<h2>Closed</h2>
${incidentRows(closed)}`,
  );
}

export interface IncidentFormValues {
  kind: IncidentKind;
  name: string;
  impact: string;
  status: string;
  body: string;
  scheduled_for: string;
  scheduled_until: string;
  components: Map<string, string>;
}

export function newIncidentPage(
  who: Visitor,
  values: IncidentFormValues,
  errors: FieldErrors,
): Html {
  const maintenance = values.kind === "maintenance";
  const statuses = maintenance ? MAINTENANCE_STATUSES : INCIDENT_STATUSES;
  return layout(
    who,
    maintenance ? "Schedule maintenance" : "Open an incident",
    html`${Object.keys(errors).length > 0 ? notice("error", "Some fields need a look: see beside each.") : ""}
<form method="post" action="/app/status/incidents" class="stack" novalidate>${csrfInput(who)}
  <input type="hidden" name="kind" value="${values.kind}">
  ${field({ name: "name", label: "Name", value: values.name, error: errors.name, required: true })}
  ${select("impact", "Impact", IMPACTS, { none: "None", minor: "Minor", major: "Major", critical: "Critical", maintenance: "Maintenance" }, values.impact, errors)}
  ${select("status", "Status", statuses, STATUS_LABELS, values.status, errors)}
  ${
    maintenance
      ? html`${field({ name: "scheduled_for", label: "Starts (UTC)", type: "datetime-local", value: values.scheduled_for, error: errors.scheduled_for, required: true })}
  ${field({ name: "scheduled_until", label: "Ends (UTC)", type: "datetime-local", value: values.scheduled_until, error: errors.scheduled_until, required: true })}`
      : ""
  }
  ${textarea("body", "Message", values.body, errors, "What people see on the status page and in emails.")}
  ${componentChoices(values.components, errors)}
  <button type="submit">${maintenance ? "Schedule maintenance" : "Open incident"}</button>
  <a class="button secondary" href="/app/status">Cancel</a>
</form>`,
  );
}

export function staffIncidentPage(
  who: Visitor,
  entry: IncidentWithUpdates,
  values: { status: string; body: string; components: Map<string, string> },
  errors: FieldErrors,
): Html {
  const { incident } = entry;
  const statuses = incident.kind === "maintenance" ? MAINTENANCE_STATUSES : INCIDENT_STATUSES;
  return layout(
    who,
    incident.name,
    html`<p><a href="/app/status">Status page</a> · <a href="/status/incidents/${incident.id}">Public page</a></p>
<dl><dt>Status</dt><dd>${STATUS_LABELS[incident.status] ?? incident.status}</dd>
<dt>Impact</dt><dd>${incident.impact}</dd>
${
  incident.scheduledFor && incident.scheduledUntil
    ? html`<dt>Window</dt><dd>${dateTimeText(incident.scheduledFor)} to ${dateTimeText(incident.scheduledUntil)}</dd>`
    : ""
}</dl>
<h2>Post an update</h2>
${Object.keys(errors).length > 0 ? notice("error", "Some fields need a look: see beside each.") : ""}
<form method="post" action="/app/status/incidents/${incident.id}/updates" class="stack" novalidate>${csrfInput(who)}
  ${select("status", "Status", statuses, STATUS_LABELS, values.status, errors)}
  ${textarea("body", "Message", values.body, errors, "Resolving or completing sets its components back to operational unless you choose otherwise.")}
  ${componentChoices(values.components, errors)}
  <button type="submit">Post update</button>
</form>
<h2>Updates</h2>
<ol>${entry.updates.map(
      (update) =>
        html`<li><p><strong>${STATUS_LABELS[update.status] ?? update.status}</strong>, ${dateTimeText(update.createdAt)}</p><p>${update.body}</p></li>`,
    )}</ol>`,
  );
}
