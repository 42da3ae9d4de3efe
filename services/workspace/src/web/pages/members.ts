import { MEMBER_ROLES, type MemberRole } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import { can } from "../../identity/members/permissions.ts";
import type { MembershipRow, PersonRow } from "../../identity/members/store.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { navOf } from "./organizations.ts";

/** A member as `membersOf` lists them. */
export interface MemberListItem {
  person: PersonRow;
  membership: MembershipRow;
}

export interface MembersPageState {
  invite?: { email?: string; role?: string; errors?: Record<string, string> };
  /** A refused change of one member, shown beside that member's actions. */
  memberError?: { personId: string; message: string };
  /** The session's sign-in is older than 12 hours: giving admin or owner asks for a code first. */
  needsCode?: boolean;
}

const when = (at: Date) =>
  html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 10)} UTC</time>`;

/** The roles this person may give: only owners make owners. */
export function rolesOffered(access: OrgAccess): MemberRole[] {
  const owners = can(access.role, "members.manage_owners");
  return MEMBER_ROLES.filter((role) => owners || role !== "owner");
}

function roleOptions(roles: MemberRole[], selected: string | undefined): Html[] {
  return roles.map(
    (role) =>
      html`<option value="${role}"${role === selected ? html` selected` : ""}>${role}</option>`,
  );
}

function memberRow(
  who: Visitor,
  access: OrgAccess,
  base: string,
  member: MemberListItem,
  error: string | undefined,
): Html {
  const { person, membership } = member;
  const id = person.id;
  const mayChange = membership.role !== "owner" || can(access.role, "members.manage_owners");
  const errorId = `member-${id}-error`;
  const described = error ? html` aria-describedby="${errorId}"` : "";
  const actions = mayChange
    ? html`<form method="post" action="${base}/${id}/role" class="inline">${csrfInput(who)}
  <label class="visually-hidden" for="role-${id}">Role of ${person.email}</label>
  <select id="role-${id}" name="role"${described}>${roleOptions(rolesOffered(access), membership.role)}</select>
  <button type="submit" class="secondary" aria-label="Change role of ${person.email}">Change role</button>
</form>
<form method="post" action="${base}/${id}/remove" class="inline">${csrfInput(who)}
  <button type="submit" class="danger" aria-label="Remove ${person.email}"${described}>Remove</button>
</form>`
    : html`<span>Only an owner changes an owner.</span>`;
  const you = person.id === who.signedIn?.person.id ? html` <strong>(you)</strong>` : "";
  return html`<tr><td>${person.email}${you}</td><td>${membership.role}</td><td>${when(membership.createdAt)}</td>
<td>${actions}${error ? html`<p class="error" id="${errorId}" role="alert">${error}</p>` : ""}</td></tr>`;
}

/** /app/orgs/{org}/members: members and roles; invite, change a role, remove. */
export function membersPage(
  who: Visitor,
  access: OrgAccess,
  members: MemberListItem[],
  state: MembersPageState = {},
): Html {
  const org = access.organization;
  const base = `/app/orgs/${encodeURIComponent(org.slug)}/members`;
  const invite = state.invite ?? {};
  const errors = invite.errors ?? {};
  return layout(
    who,
    `Members of ${org.name}`,
    html`${state.needsCode ? notice("info", "Giving the admin or owner role needs a sign-in code from the last 12 hours: you will be asked for a new one first.") : ""}
${Object.keys(errors).length > 0 ? notice("error", "Nobody was added: see the fields below.") : ""}
<table><caption class="visually-hidden">Members and their roles</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Member since</th><th scope="col">Actions</th></tr></thead>
<tbody>${members.map((member) =>
      memberRow(
        who,
        access,
        base,
        member,
        state.memberError?.personId === member.person.id ? state.memberError.message : undefined,
      ),
    )}</tbody></table>
<p>An organization keeps at least one owner. Only owners make or unmake owners.</p>
<section aria-labelledby="invite"><h2 id="invite">Invite a person</h2>
<p>They are added at once and get an email saying how to sign in.</p>
<form method="post" action="${base}" novalidate>${csrfInput(who)}
  ${field({ name: "email", label: "Email address", type: "email", autocomplete: "off", value: invite.email, error: errors.email, required: true })}
  <div class="field${errors.role ? " has-error" : ""}">
    <label for="field-role">Role</label>
    <select id="field-role" name="role"${errors.role ? html` aria-invalid="true" aria-describedby="field-role-error"` : ""}>${roleOptions(
      rolesOffered(access),
      invite.role ?? "viewer",
    )}</select>
    ${errors.role ? html`<p class="error" id="field-role-error">${errors.role}</p>` : ""}
  </div>
  <button type="submit">Invite</button>
</form></section>`,
    { org: navOf(access, "members") },
  );
}
