import { type Html, html } from "@newsroom/shared/html";
import { canonicalUrl } from "@newsroom/shared/site-address";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { SiteRow } from "../../resolve.ts";
import type { HostnameRow } from "../../sites/model.ts";
import { activeHostname } from "../../sites/public-pages.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { navOf } from "./organizations.ts";

export interface SiteFormState {
  values?: Record<string, string>;
  enabled?: boolean;
  live?: boolean;
  errors?: Record<string, string>;
}

export interface SitesPageState {
  site?: SiteFormState;
  hostname?: { site?: string; hostname?: string; errors?: Record<string, string> };
}

const when = (at: Date) =>
  html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;

function hostnameStatus(row: HostnameRow): Html {
  return row.status === "active"
    ? html`<span class="status">active</span> since ${when(row.activatedAt ?? row.createdAt)}`
    : html`<span class="status">pending</span> waits for an operator to confirm its certificate`;
}

function siteSection(site: SiteRow, names: HostnameRow[], newsroomHost: string): Html {
  const id = `site-${site.slug}`;
  const canonical = canonicalUrl(newsroomHost, site.slug, activeHostname(names));
  const yesNo = (value: boolean) => (value ? "yes" : "no");
  return html`<section aria-labelledby="${id}"><h3 id="${id}">${site.name}</h3>
<dl class="facts">
  <dt>Site slug</dt><dd>${site.slug}</dd>
  <dt>Publisher</dt><dd>${site.publisher}</dd>
  <dt>Accent</dt><dd>${site.accent}</dd>
  <dt>Enabled (served)</dt><dd>${yesNo(site.enabled)}</dd>
  <dt>Live (indexable)</dt><dd>${yesNo(site.live)}</dd>
  <dt>Canonical address</dt><dd><a href="${canonical}">${canonical}</a></dd>
</dl>
${
  names.length === 0
    ? html`<p>No hostname: the site is served at its hosted address.</p>`
    : html`<table><caption>Hostnames of ${site.name}</caption>
<thead><tr><th scope="col">Hostname</th><th scope="col">Status</th><th scope="col">Added</th></tr></thead>
<tbody>${names.map(
        (name) =>
          html`<tr><td>${name.hostname}</td><td>${hostnameStatus(name)}</td><td>${when(name.createdAt)}</td></tr>`,
      )}</tbody></table>`
}</section>`;
}

function checkbox(name: string, label: string, checked: boolean): Html {
  return html`<div class="field check"><input type="checkbox" id="field-${name}" name="${name}" value="yes"${
    checked ? html` checked` : ""
  }> <label for="field-${name}">${label}</label></div>`;
}

function siteForm(who: Visitor, action: string, state: SiteFormState): Html {
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  return html`<section aria-labelledby="add-site"><h2 id="add-site">Add a site</h2>
<form method="post" action="${action}" novalidate>${csrfInput(who)}
  ${field({ name: "site", label: "Site slug", hint: "Lower-case letters, digits and hyphens; the site's hosted address ends with it.", value: values.site, error: errors.site, required: true })}
  ${field({ name: "name", label: "Name", value: values.name, error: errors.name, required: true })}
  ${field({ name: "publisher", label: "Publisher", value: values.publisher, error: errors.publisher, required: true })}
  ${field({ name: "accent", label: "Accent colour", hint: "A hex colour such as #1a73e8.", value: values.accent ?? "#1a73e8", error: errors.accent })}
  ${checkbox("enabled", "Enabled: serve the site", state.enabled ?? true)}
  ${checkbox("live", "Live: let search engines index it", state.live ?? false)}
  <button type="submit">Add site</button>
</form></section>`;
}

function hostnameForm(
  who: Visitor,
  action: string,
  sites: SiteRow[],
  state: NonNullable<SitesPageState["hostname"]>,
): Html {
  const errors = state.errors ?? {};
  if (sites.length === 0 && Object.keys(errors).length === 0) return html``;
  const siteError = errors.site;
  return html`<section aria-labelledby="add-hostname"><h2 id="add-hostname">Add a hostname</h2>
<p>A hostname is added as pending. An operator activates it once its certificate is confirmed;
from then on it is the site's canonical address.</p>
<form method="post" action="${action}" novalidate>${csrfInput(who)}
  <div class="field${siteError ? " has-error" : ""}">
    <label for="field-hostname-site">Site</label>
    <select id="field-hostname-site" name="site"${siteError ? html` aria-invalid="true" aria-describedby="field-hostname-site-error"` : ""}>
      ${sites.map((site) => html`<option value="${site.slug}"${state.site === site.slug ? html` selected` : ""}>${site.name} (${site.slug})</option>`)}
    </select>
    ${siteError ? html`<p class="error" id="field-hostname-site-error">${siteError}</p>` : ""}
  </div>
  ${field({ name: "hostname", label: "Hostname", hint: "Such as news.example.com.", value: state.hostname, error: errors.hostname, required: true })}
  <button type="submit">Add hostname</button>
</form></section>`;
}

/** /app/orgs/{org}/sites: the organization's hosted sites and hostnames; add either. */
export function sitesPage(
  who: Visitor,
  access: OrgAccess,
  data: { sites: SiteRow[]; hostnames: HostnameRow[]; newsroomHost: string },
  state: SitesPageState = {},
): Html {
  const org = access.organization;
  const base = `/app/orgs/${encodeURIComponent(org.slug)}`;
  const failed = state.site?.errors ?? state.hostname?.errors;
  const list =
    data.sites.length === 0
      ? html`<p>No hosted site yet.</p>`
      : data.sites.map((site) =>
          siteSection(
            site,
            data.hostnames.filter((name) => name.siteId === site.id),
            data.newsroomHost,
          ),
        );
  return layout(
    who,
    `Sites of ${org.name}`,
    html`${failed ? notice("error", "Nothing was added: see the fields below.") : ""}
<section aria-labelledby="sites"><h2 id="sites">Hosted sites</h2>${list}</section>
${siteForm(who, `${base}/sites`, state.site ?? {})}
${hostnameForm(who, `${base}/hostnames`, data.sites, state.hostname ?? {})}`,
    { org: navOf(access, "sites") },
  );
}
