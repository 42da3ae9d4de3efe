import type {
  CmsConnectionCheckOut,
  CmsConnectionOut,
} from "@newsroom/shared/cms-connection-commands";
import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { navOf } from "./organizations.ts";

export interface CmsAddState {
  values?: Record<string, string>;
  errors?: Record<string, string>;
}

export interface CmsPageState {
  add?: CmsAddState;
  /** The outcome of "Check connection", shown above the list. */
  checked?: CmsConnectionCheckOut;
  /** A command the webhooks service refused, in plain words. */
  problem?: string;
}

const KIND_LABELS = { wordpress: "WordPress", ghost: "Ghost" } as const;
const STATUS_LABELS = {
  unchecked: "not checked yet",
  working: "working",
  failing: "failing: writes keep failing",
} as const;

function when(at: string | null): Html {
  if (!at) return html``;
  return html` <time datetime="${at}">(${at.slice(0, 16).replace("T", " ")} UTC)</time>`;
}

function connectionSection(who: Visitor, base: string, c: CmsConnectionOut): Html {
  const id = `cms-${c.id}`;
  const path = `${base}/cms-connections/${c.id}`;
  return html`<section aria-labelledby="${id}"><h3 id="${id}">${KIND_LABELS[c.kind]}: ${c.url}</h3>
<dl class="facts">
  <dt>Status</dt><dd><span class="status">${STATUS_LABELS[c.status]}</span></dd>
  <dt>Last problem</dt><dd>${c.last_error ? html`${c.last_error}${when(c.last_error_at)}` : "none"}</dd>
  <dt>Failed writes in a row</dt><dd>${String(c.consecutive_failures)}</dd>
</dl>
<form method="post" action="${path}/check">${csrfInput(who)}
  <button type="submit">Check connection</button>
</form>
<form method="post" action="${path}" novalidate>${csrfInput(who)}
  <div class="field check"><input type="checkbox" id="enabled-${c.id}" name="enabled" value="yes"${
    c.enabled ? html` checked` : ""
  }> <label for="enabled-${c.id}">Enabled: write published stories into this site</label></div>
  <div class="field"><label for="unpublish-${c.id}">When a story is unpublished</label>
    <select id="unpublish-${c.id}" name="unpublish_mode">
      <option value="draft"${c.unpublish_mode === "draft" ? html` selected` : ""}>Make its post a draft</option>
      <option value="trash"${c.unpublish_mode === "trash" ? html` selected` : ""}>Move its post to the trash</option>
    </select></div>
  <button type="submit">Save</button>
</form>
<p><a href="${path}/delete">Delete this connection</a></p>
</section>`;
}

function addForm(who: Visitor, action: string, state: CmsAddState): Html {
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const kind = values.kind === "ghost" ? "ghost" : "wordpress";
  const kindError = errors.kind;
  return html`<section aria-labelledby="add-cms"><h2 id="add-cms">Add a connection</h2>
<p>Published stories are written into the site as posts; unpublished ones are taken off it. The
credential is stored sealed and never shown again.</p>
<form method="post" action="${action}" novalidate>${csrfInput(who)}
  <fieldset${kindError ? html` aria-describedby="field-kind-error"` : ""}><legend>Kind</legend>
    <div class="field check"><input type="radio" id="kind-wordpress" name="kind" value="wordpress"${
      kind === "wordpress" ? html` checked` : ""
    }> <label for="kind-wordpress">WordPress</label></div>
    <div class="field check"><input type="radio" id="kind-ghost" name="kind" value="ghost"${
      kind === "ghost" ? html` checked` : ""
    }> <label for="kind-ghost">Ghost</label></div>
    ${kindError ? html`<p class="error" id="field-kind-error">${kindError}</p>` : ""}
  </fieldset>
  ${field({ name: "url", label: "Site address", hint: "WordPress: the site's home address, such as https://news.example.com. Ghost: the Admin API address.", value: values.url, error: errors.url, required: true, type: "url" })}
  <h3>WordPress</h3>
  ${field({ name: "username", label: "WordPress user name", hint: "The user the posts are written as: an Author or a higher role.", value: values.username, error: errors.username, autocomplete: "off" })}
  ${field({ name: "application_password", label: "Application password", hint: "Made on that user's profile page, under Application Passwords.", type: "password", error: errors.application_password, autocomplete: "new-password" })}
  <h3>Ghost</h3>
  ${field({ name: "admin_api_key", label: "Admin API key", hint: "From a custom integration in Ghost's settings.", type: "password", error: errors.admin_api_key, autocomplete: "new-password" })}
  <button type="submit">Add connection</button>
</form></section>`;
}

function checkedNotice(checked: CmsConnectionCheckOut): Html {
  const where = `${KIND_LABELS[checked.connection.kind]} at ${checked.connection.url}`;
  return checked.ok
    ? notice("info", `${where}: ${checked.message}`)
    : notice("error", `${where}: ${checked.message}`);
}

/** /app/orgs/{org}/cms-connections: the client CMSs stories are written into; add, check, change. */
export function cmsConnectionsPage(
  who: Visitor,
  access: OrgAccess,
  connections: CmsConnectionOut[],
  state: CmsPageState = {},
): Html {
  const org = access.organization;
  const base = `/app/orgs/${encodeURIComponent(org.slug)}`;
  const failing = connections.filter((c) => c.status === "failing");
  return layout(
    who,
    `CMS connections of ${org.name}`,
    html`${state.add?.errors ? notice("error", "Nothing was added: see the fields below.") : ""}
${state.problem ? notice("error", state.problem) : ""}
${state.checked ? checkedNotice(state.checked) : ""}
${
  failing.length > 0
    ? notice(
        "error",
        `Writes keep failing for ${failing.map((c) => c.url).join(", ")}: check the connection.`,
      )
    : ""
}
<section aria-labelledby="cms-list"><h2 id="cms-list">Connections</h2>
${
  connections.length === 0
    ? html`<p>No connection yet: stories reach other sites through the feed, the API and webhooks.</p>`
    : connections.map((c) => connectionSection(who, base, c))
}</section>
${addForm(who, `${base}/cms-connections`, state.add ?? {})}`,
    { org: navOf(access, "cms-connections") },
  );
}
