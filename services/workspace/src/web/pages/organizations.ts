import type { MemberRole, StoryStatus } from "@newsroom/shared/db/schema";
import { STORY_STATUSES } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import { can } from "../../identity/members/permissions.ts";
import type { StoryListItem } from "../../stories/queries.ts";
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

/** /app/orgs/{org}: the organization at a glance. */
export function overviewPage(
  who: Visitor,
  access: OrgAccess,
  counts: Map<StoryStatus, number>,
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
${rows.length === 0 ? html`<p>No stories yet.</p>` : html`<table><thead><tr><th scope="col">Status</th><th scope="col">Stories</th></tr></thead><tbody>${rows}</tbody></table>`}`,
    { org: navOf(access, "overview") },
  );
}

function storyTable(items: StoryListItem[], caption: string): Html {
  return html`<table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
<tbody>${items.map(
    (item) => html`<tr><td><a href="/app/stories/${item.id}">${item.title ?? item.slug}</a></td>
<td>${statusLabel(item.type)}</td><td>${statusBadge(item.status)}</td>
<td><time datetime="${item.updatedAt.toISOString()}">${item.updatedAt.toISOString().slice(0, 16).replace("T", " ")}</time></td></tr>`,
  )}</tbody></table>`;
}

/** /app/orgs/{org}/stories: every story, grouped by status. */
export function storiesPage(who: Visitor, access: OrgAccess, items: StoryListItem[]): Html {
  const sections = STORY_STATUSES.map((status) => {
    const inStatus = items.filter((item) => item.status === status);
    if (inStatus.length === 0) return "";
    const id = `status-${status}`;
    return html`<section aria-labelledby="${id}"><h2 id="${id}">${statusLabel(status)} (${inStatus.length})</h2>
${storyTable(inStatus, `Stories in ${statusLabel(status)}`)}</section>`;
  });
  return layout(
    who,
    `Stories of ${access.organization.name}`,
    html`${
      can(access.role, "story.edit")
        ? html`<p><a class="button" href="/app/orgs/${encodeURIComponent(access.organization.slug)}/stories/new">New story</a></p>`
        : ""
    }
${items.length === 0 ? html`<p>No stories yet.</p>` : sections}`,
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
