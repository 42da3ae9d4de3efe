import { type Html, html } from "@newsroom/shared/html";
import { freshSignInUrl } from "../fresh-sign-in.ts";
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
export function applicationsPage(
  who: Visitor,
  grants: AllowedApplication[],
  options: { ssoOnly?: boolean } = {},
): Html {
  // A short list of facts for each, not a table: readable on a phone 390 px wide.
  const list =
    grants.length === 0
      ? html`<p>You have not allowed any application.</p>`
      : grants.map(
          (grant) => html`<section aria-labelledby="grant-${grant.id}">
<h2 id="grant-${grant.id}">${grant.application}</h2>
<dl class="facts"><dt>Organization</dt><dd>${grant.organization}</dd>
<dt>Scope</dt><dd><code>${grant.scope}</code></dd>
<dt>Allowed</dt><dd>${when(grant.allowedAt)}</dd>
<dt>Last used</dt><dd>${when(grant.lastUsedAt)}</dd></dl>
<p><a href="/app/applications/${grant.id}/revoke">Revoke<span class="visually-hidden"> ${grant.application} in ${grant.organization}</span></a></p>
</section>`,
        );
  return layout(
    who,
    "Applications you allowed",
    html`<p>Applications you allowed to act in your name, in the organization named. Revoking one
ends its access at once: its tokens stop working, and it must ask you again.</p>
${
  options.ssoOnly
    ? html`<p>You signed in with your organization's single sign-on, which opens that organization
only: this list shows its applications. <a href="${freshSignInUrl("/app/applications")}">Confirm with
an emailed code</a> to see those you allowed in your other organizations.</p>`
    : ""
}
${list}`,
  );
}
