import type { MemberRole, StoryStatus } from "@newsroom/shared/db/schema";
import { STORY_STATUSES } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import { can } from "../../identity/members/permissions.ts";
import type { StoryFilter, StoryListItem } from "../../stories/queries.ts";
import { freshSignInUrl } from "../fresh-sign-in.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, type OrgNav } from "../layout.ts";

export interface OrgSummary {
  slug: string;
  name: string;
  role: MemberRole;
}

export const statusLabel = (status: string) => status.replace(/_/g, " ");

export function statusBadge(status: StoryStatus): Html {
  return html`<span class="status">${statusLabel(status)}</span>`;
}

export function navOf(access: OrgAccess, current: OrgNav["current"]): OrgNav {
  return {
    slug: access.organization.slug,
    name: access.organization.name,
    current,
    role: access.role,
    staff: access.staff,
  };
}

/** /app/: the organizations the person belongs to; staff see all and may create one. */
export function homePage(
  who: Visitor,
  options: {
    orgs: OrgSummary[];
    staff: boolean;
    /** The session single sign-on opened: it reaches this organization only. */
    ssoOnly?: boolean;
    form?: { slug?: string; name?: string; errors?: Record<string, string> };
  },
): Html {
  const list =
    options.orgs.length === 0
      ? html`<p>You are not a member of any organization yet.</p>`
      : html`<table><caption class="visually-hidden">Your organizations</caption>
<thead><tr><th scope="col">Organization</th><th scope="col">Your role</th></tr></thead>
<tbody>${options.orgs.map(
          (org) =>
            html`<tr><td><a href="/app/orgs/${encodeURIComponent(org.slug)}">${org.name}</a></td><td>${org.role}</td></tr>`,
        )}</tbody></table>`;
  const errors = options.form?.errors ?? {};
  const create = options.staff
    ? html`<section aria-labelledby="create-org"><h2 id="create-org">Create an organization</h2>
<form method="post" action="/app/orgs" novalidate>${csrfInput(who)}
  ${field({ name: "name", label: "Name", value: options.form?.name, error: errors.name, required: true })}
  ${field({
    name: "slug",
    label: "Slug",
    hint: "Lower-case letters, digits and hyphens; used in addresses.",
    value: options.form?.slug,
    error: errors.slug,
    required: true,
  })}
  <button type="submit">Create organization</button>
</form></section>`
    : "";
  const ssoOnly = options.ssoOnly
    ? html`<p>You signed in with your organization's single sign-on, which opens that organization
only. <a href="${freshSignInUrl("/app/")}">Confirm with an emailed code</a> to reach your other
organizations.</p>`
    : "";
  return layout(who, "Your organizations", html`${list}${ssoOnly}${create}`);
}

/**
 * The owners' switch of approvals through the API (OAuth applications deciding stories in a
 * member's name): a button that asks first for owners, the setting read-only for admins, nothing
 * for the other roles.
 */
function apiApprovalsSection(who: Visitor, access: OrgAccess, enabled: boolean): Html {
  const owner = can(access.role, "api_approvals.switch");
  if (!owner && !can(access.role, "oauth_client.manage")) return html``;
  const slug = encodeURIComponent(access.organization.slug);
  const state = html`<p>Approvals through the API: <strong>${enabled ? "on" : "off"}</strong>.
${enabled ? "Applications members allowed may approve and reject stories in their name." : "No application may approve or reject stories, whatever members allowed."}</p>`;
  const change = owner
    ? html`<form method="post" action="/app/orgs/${slug}/api-approvals">${csrfInput(who)}
  <input type="hidden" name="enabled" value="${enabled ? "false" : "true"}">
  <button type="submit"${enabled ? html` class="danger"` : ""}>Turn approvals through the API ${enabled ? "off" : "on"}</button>
</form>`
    : html`<p>Only an owner may change this.</p>`;
  return html`<section aria-labelledby="api-approvals"><h2 id="api-approvals">Approvals through the API</h2>
${state}${change}
<p><a href="/app/orgs/${slug}/oauth-clients">OAuth applications</a></p></section>`;
}

/** /app/orgs/{org}: the organization at a glance. */
export function overviewPage(
  who: Visitor,
  access: OrgAccess,
  counts: Map<StoryStatus, number>,
  apiApprovalsEnabled: boolean,
): Html {
  const org = access.organization;
  const queue = counts.get("review_required") ?? 0;
  const rows = STORY_STATUSES.filter((status) => (counts.get(status) ?? 0) > 0).map(
    (status) =>
      html`<tr><th scope="row">${statusLabel(status)}</th><td>${counts.get(status)}</td></tr>`,
  );
  return layout(
    who,
    org.name,
    html`<p>Your role here: <strong>${access.role}</strong>${access.staff ? " (staff)" : ""}.
Newsroom ${org.newsroomRunning ? "running" : "not running"}.</p>
<p><a href="/app/orgs/${encodeURIComponent(org.slug)}/approvals">${queue} ${queue === 1 ? "story waits" : "stories wait"} for review</a></p>
<h2>Stories by status</h2>
${rows.length === 0 ? html`<p>No stories yet.</p>` : html`<table><thead><tr><th scope="col">Status</th><th scope="col">Stories</th></tr></thead><tbody>${rows}</tbody></table>`}
${apiApprovalsSection(who, access, apiApprovalsEnabled)}`,
    { org: navOf(access, "overview") },
  );
}

function storyTable(items: StoryListItem[], caption: string): Html {
  return html`<table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
<tbody>${items.map(
    (item) => html`<tr><td><a href="/app/stories/${item.id}">${item.title ?? item.slug}</a></td>
<td>${statusLabel(item.type)}</td><td>${statusBadge(item.status)}</td>
<td><time datetime="${item.updatedAt.toISOString()}">${item.updatedAt.toISOString().slice(0, 16).replace("T", " ")} UTC</time></td></tr>`,
  )}</tbody></table>`;
}

export interface StoriesPageData {
  items: StoryListItem[];
  filter: StoryFilter;
  /** The page shown, from 1. */
  page: number;
  more: boolean;
}

/** The address of a page of the filtered list. */
function storiesPath(base: string, filter: StoryFilter, page: number): string {
  const query = new URLSearchParams();
  if (filter.status) query.set("status", filter.status);
  if (filter.text) query.set("q", filter.text);
  if (page > 1) query.set("page", String(page));
  const text = query.toString();
  return text ? `${base}?${text}` : base;
}

/** /app/orgs/{org}/stories: the stories, newest change first, filtered and a page at a time. */
export function storiesPage(who: Visitor, access: OrgAccess, data: StoriesPageData): Html {
  const base = `/app/orgs/${encodeURIComponent(access.organization.slug)}/stories`;
  const { filter, page } = data;
  const filtered = filter.status !== null || filter.text !== "";
  const form = html`<form method="get" action="${base}" class="actions" role="search" aria-label="Filter the stories">
  <div class="field"><label for="field-status">Status</label>
  <select id="field-status" name="status"><option value="">Any status</option>${STORY_STATUSES.map(
    (status) =>
      html`<option value="${status}"${status === filter.status ? html` selected` : ""}>${statusLabel(status)}</option>`,
  )}</select></div>
  ${field({ name: "q", label: "Title or slug contains", type: "search", value: filter.text })}
  <button type="submit">Filter</button>
  ${filtered ? html`<a href="${base}">Show every story</a>` : ""}
</form>`;
  const pages = [
    page > 1 ? html`<a href="${storiesPath(base, filter, page - 1)}">Newer stories</a>` : "",
    data.more ? html`<a href="${storiesPath(base, filter, page + 1)}">Older stories</a>` : "",
  ].filter(Boolean);
  const empty = filtered || page > 1 ? "No story matches." : "No stories yet.";
  return layout(
    who,
    `Stories of ${access.organization.name}`,
    html`${
      can(access.role, "story.edit")
        ? html`<p><a class="button" href="/app/orgs/${encodeURIComponent(access.organization.slug)}/stories/new">New story</a></p>`
        : ""
    }
${form}
${data.items.length === 0 ? html`<p>${empty}</p>` : storyTable(data.items, `Stories, page ${page}`)}
${pages.length > 0 ? html`<nav aria-label="Story pages"><p class="pages">Page ${page}. ${pages}</p></nav>` : ""}`,
    { org: navOf(access, "stories") },
  );
}

/** /app/orgs/{org}/approvals: the review queue. */
export function approvalsPage(who: Visitor, access: OrgAccess, items: StoryListItem[]): Html {
  return layout(
    who,
    `Review queue of ${access.organization.name}`,
    items.length === 0
      ? html`<p>Nothing waits for review.</p>`
      : html`<p>${items.length} ${items.length === 1 ? "story waits" : "stories wait"} for a decision.</p>
${storyTable(items, "Stories waiting for review")}`,
    { org: navOf(access, "approvals") },
  );
}
