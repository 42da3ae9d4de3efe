import { type Html, html } from "@newsroom/shared/html";
import type { Visitor } from "../kit.ts";
import { layout } from "../layout.ts";

/** An application the person allowed, as /app/applications lists it. */
export interface AllowedApplication {
  /** The grant's id: what Revoke names. */
  id: string;
  application: string;
  organization: string;
  scope: string;
  allowedAt: Date;
  lastUsedAt: Date | null;
}

const when = (at: Date | null) =>
  at
    ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`
    : "never";

/** /app/applications: the applications the signed-in person allowed, each revocable. */
export function applicationsPage(who: Visitor, grants: AllowedApplication[]): Html {
  const list =
    grants.length === 0
      ? html`<p>You have not allowed any application.</p>`
      : html`<table><caption class="visually-hidden">Applications you allowed</caption>
<thead><tr><th scope="col">Application</th><th scope="col">Organization</th><th scope="col">Scope</th>
<th scope="col">Allowed</th><th scope="col">Last used</th>
<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${grants.map(
          (grant) => html`<tr><td>${grant.application}</td><td>${grant.organization}</td>
<td><code>${grant.scope}</code></td><td>${when(grant.allowedAt)}</td><td>${when(grant.lastUsedAt)}</td>
<td><a href="/app/applications/${grant.id}/revoke">Revoke<span class="visually-hidden"> ${grant.application} in ${grant.organization}</span></a></td></tr>`,
        )}</tbody></table>`;
  return layout(
    who,
    "Applications you allowed",
    html`<p>Applications you allowed to act in your name, in the organization named. Revoking one
ends its access at once: its tokens stop working, and it must ask you again.</p>
${list}`,
  );
}
