import { type Html, html } from "@newsroom/shared/html";
import type { AuditLogEntry } from "../../audit-log.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { layout } from "../layout.ts";
import { navOf } from "./organizations.ts";

/** What an action means to a reader; an action not listed shows as written. */
const ACTIONS: Record<string, string> = {
  "api_key.created": "API key created",
  "api_key.revoked": "API key revoked",
  "preview_link.created": "Preview link created",
  "preview_link.revoked": "Preview link revoked",
  "webhook_endpoint.created": "Webhook endpoint created",
  "webhook_endpoint.disabled": "Webhook endpoint disabled",
  "webhook_endpoint.failing": "Webhook endpoint failing (alert emailed)",
  "webhook_delivery.exhausted": "Webhook delivery failed after every retry (alert emailed)",
  "webhook_endpoint.enabled": "Webhook endpoint enabled",
  "webhook_endpoint.deleted": "Webhook endpoint deleted",
  "webhook_endpoint.secret_rotated": "Webhook endpoint secret rotated",
  "webhook_endpoint.updated": "Webhook endpoint's rate or ordering changed",
  "webhook_endpoint.recovered": "Failed webhook deliveries resent",
  "webhook_delivery.resent": "Webhook delivery resent",
  "cms_connection.created": "CMS connection added",
  "cms_connection.updated": "CMS connection changed",
  "cms_connection.deleted": "CMS connection deleted",
  "cms_connection.failing": "CMS connection failing (owners emailed)",
  "member.added": "Member added",
  "member.role_changed": "Member's role changed",
  "member.removed": "Member removed",
  "story.approve": "Story approved",
  "oauth_client.create": "Application registered",
  "oauth_grant.create": "Application allowed",
  "oauth_grant.revoke": "Application revoked",
  "oauth_grant.reuse_revoked": "Application's tokens revoked (a refresh token used twice)",
  "story.reject": "Story rejected",
  "story.publish": "Story published",
  "story.unpublish": "Story unpublished",
  "newsletter.enabled": "Newsletter turned on",
  "newsletter.disabled": "Newsletter turned off",
  "newsletter.origin_added": "Newsletter origin added",
  "newsletter.origin_removed": "Newsletter origin removed",
  "site.created": "Site added",
  "hostname.added": "Hostname added",
  "sso.configured": "Single sign-on set up",
  "sso.updated": "Single sign-on changed",
  "sso.client_secret_replaced": "Single sign-on client secret replaced",
  "sso.enabled": "Single sign-on turned on",
  "sso.disabled": "Single sign-on turned off",
  "sso.signed_in": "Signed in with single sign-on",
  "sso.sign_in_refused": "Single sign-on refused",
  "sso.domain_verified": "Single sign-on domain verified",
  "api_approvals.enabled": "Approvals through the API turned on",
  "api_approvals.disabled": "Approvals through the API turned off",
  "oauth_client.delete": "Application deleted",
};

/** `member.role_changed:viewer>admin` reads "Member's role changed (viewer → admin)". */
export function describeAction(action: string): string {
  const at = action.indexOf(":");
  const name = at === -1 ? action : action.slice(0, at);
  const detail = at === -1 ? "" : action.slice(at + 1).replace(">", " → ");
  const label = ACTIONS[name] ?? name;
  return detail ? `${label} (${detail})` : label;
}

/** The operator (the internal API), a person by address, or who single sign-on presented. */
function who(entry: AuditLogEntry): string {
  if (entry.actor === "admin") return "operator";
  if (entry.actorEmail && entry.actor.includes(" via oauth_client:")) {
    return `${entry.actorEmail} (through ${entry.actorClient ?? "an application"})`;
  }
  if (entry.actorEmail) return entry.actorEmail;
  if (entry.actor === "sso") return "single sign-on";
  if (entry.actor.startsWith("sso:")) return `${entry.actor.slice(4)} (single sign-on)`;
  return entry.actor;
}

/**
 * What changed, by the name people know it by, linked to its page: a member's address, a key's
 * prefix and last four, an endpoint's URL, a story's title; else the id (such as an endpoint
 * since deleted).
 */
function subject(
  entry: AuditLogEntry,
  org: string,
  endpointUrls: Map<string, string>,
): Html | string {
  if (entry.subjectEmail) return entry.subjectEmail;
  const id = entry.subjectId;
  if (!id) return "";
  if (entry.subjectKey) {
    return html`<a href="/app/orgs/${encodeURIComponent(org)}/keys"><code>${entry.subjectKey}</code></a>`;
  }
  if (entry.subjectStory) return html`<a href="/app/stories/${id}">${entry.subjectStory}</a>`;
  const url = endpointUrls.get(id);
  if (url && entry.action.startsWith("webhook_endpoint.")) {
    return html`<a href="/app/webhook-endpoints/${id}">${url}</a>`;
  }
  if (entry.action.startsWith("webhook_delivery.")) {
    return html`<a href="/app/webhook-deliveries/${id}">Delivery<span class="visually-hidden"> ${id}</span></a>`;
  }
  return id;
}

/** /app/orgs/{org}/audit: the organization's audit events, newest first, a page at a time. */
export function auditPage(
  visitor: Visitor,
  access: OrgAccess,
  data: {
    events: AuditLogEntry[];
    nextPage: string | null;
    firstPage: string | null;
    /** The organization's webhook endpoints' URLs by id. */
    endpointUrls: Map<string, string>;
  },
): Html {
  const org = access.organization;
  const rows = data.events.map(
    (entry) => html`<tr>
<td><time datetime="${entry.createdAt.toISOString()}">${entry.createdAt.toISOString().slice(0, 19).replace("T", " ")} UTC</time></td>
<td>${who(entry)}</td><td>${describeAction(entry.action)}</td>
<td>${subject(entry, org.slug, data.endpointUrls)}</td></tr>`,
  );
  const pages = [
    data.firstPage ? html`<a href="${data.firstPage}">Newest events</a>` : "",
    data.nextPage ? html`<a href="${data.nextPage}">Older events</a>` : "",
  ].filter(Boolean);
  return layout(
    visitor,
    `Audit log of ${org.name}`,
    html`<p>Changes to keys, webhook endpoints, members, settings and story decisions: who made
each one (a person's address, or "operator" for the internal API) and when.</p>
${
  rows.length === 0
    ? html`<p>No events${data.firstPage ? " further back" : " yet"}.</p>`
    : html`<table><caption class="visually-hidden">Audit events, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Subject</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
${pages.length > 0 ? html`<nav aria-label="Audit log pages"><p class="pages">${pages}</p></nav>` : ""}`,
    { org: navOf(access, "audit") },
  );
}
