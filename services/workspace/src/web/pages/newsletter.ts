import type { Config } from "@newsroom/shared/config";
import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { originShapes } from "../newsletter-origin.ts";
import { navOf } from "./organizations.ts";

const DONE: Record<string, string> = {
  enabled: "The newsletter is on.",
  disabled: "The newsletter is off.",
  "origin-added": "The origin was added.",
  "origin-removed": "The origin was removed.",
};

export interface NewsletterFormState {
  origin?: string;
  originError?: string;
  /** Which redirect brought the person here (`?done=`), for a short confirmation. */
  done?: string;
}

/**
 * The form of the README's embed.js section, for this organization. The script fills the empty
 * `submission_id` and `started_at`; a page for readers without it renders them.
 */
export function embedSnippet(publicBaseUrl: string, orgSlug: string): string {
  return `<form data-newsletter method="post"
      action="${publicBaseUrl}/v1/public/newsletter/${orgSlug}/subscribe">
  <label>Email <input type="email" name="email" required></label>
  <label><input type="checkbox" name="consent" value="on" required> Send me the newsletter</label>
  <input type="hidden" name="submission_id" value="">
  <input type="hidden" name="started_at" value="">
  <div hidden><label>Fax <input name="fax" tabindex="-1" autocomplete="off"></label></div>
  <button>Subscribe</button>
  <p data-newsletter-status></p>
</form>
<script src="${publicBaseUrl}/v1/public/newsletter/embed.js" defer></script>`;
}

/** /app/orgs/{org}/newsletter: on or off, the allowed website origins, the embed snippet. */
export function newsletterPage(
  who: Visitor,
  access: OrgAccess,
  site: { publicBaseUrl: string; serviceEnv: Config["SERVICE_ENV"] },
  state: NewsletterFormState = {},
): Html {
  const { publicBaseUrl } = site;
  const org = access.organization;
  const base = `/app/orgs/${encodeURIComponent(org.slug)}/newsletter`;
  const done = state.done ? DONE[state.done] : undefined;
  const origins = org.newsletterOrigins;
  const toggle = org.newsletterEnabled
    ? html`<p>The newsletter is <strong>on</strong>: visitors of the origins below can subscribe.</p>
<form method="post" action="${base}/disable">${csrfInput(who)}
  <button type="submit" class="danger">Turn the newsletter off</button></form>`
    : html`<p>The newsletter is <strong>off</strong>: the subscribe form answers that it is closed.</p>
<form method="post" action="${base}/enable">${csrfInput(who)}
  <button type="submit">Turn the newsletter on</button></form>`;
  const list =
    origins.length === 0
      ? html`<p>No website origin yet: add the address of the site that shows the form.</p>`
      : html`<table><caption class="visually-hidden">Allowed website origins</caption>
<thead><tr><th scope="col">Origin</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${origins.map(
          (origin) => html`<tr><td>${origin}</td><td>
<form method="post" action="${base}/origins/remove" class="inline">${csrfInput(who)}
  <input type="hidden" name="origin" value="${origin}">
  <button type="submit" class="secondary" aria-label="Remove ${origin}">Remove</button></form></td></tr>`,
        )}</tbody></table>`;
  return layout(
    who,
    `Newsletter of ${org.name}`,
    html`${done ? notice("info", done) : ""}
${state.originError ? notice("error", "The origin was not added: see the field below.") : ""}
<section aria-labelledby="status"><h2 id="status">Status</h2>${toggle}</section>
<section aria-labelledby="origins"><h2 id="origins">Allowed website origins</h2>
<p>The subscribe form is accepted only from these origins (and from the organization's hosted
newsroom and its active hostnames).</p>
${list}
<form method="post" action="${base}/origins" novalidate>${csrfInput(who)}
  ${field({
    name: "origin",
    label: "Website origin",
    hint: `${originShapes(site.serviceEnv)}, without a path.`,
    value: state.origin,
    error: state.originError,
    required: true,
  })}
  <button type="submit">Add origin</button>
</form></section>
<section aria-labelledby="embed"><h2 id="embed">Embed on your website</h2>
<p>Paste this form where the sign-up should appear. <code>embed.js</code> makes it post in place
and fills <code>submission_id</code> and <code>started_at</code>. For readers without JavaScript,
render those two values with the page, for each reader: a new UUID, and the time in milliseconds
since the epoch. The form then posts and comes back with <code>?newsletter=</code> and the
outcome.</p>
<div class="field"><label for="embed-code">Embed code</label>
<textarea id="embed-code" readonly rows="13" class="code">${embedSnippet(publicBaseUrl, org.slug)}</textarea></div>
</section>`,
    { org: navOf(access, "newsletter") },
  );
}
