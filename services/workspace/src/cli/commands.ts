import { STORY_STATUSES } from "@newsroom/shared/db/schema";
import { MailingSendIn } from "@newsroom/shared/mailings";
import {
  EndpointCreateIn,
  EndpointRecoverIn,
  EndpointUpdateIn,
} from "@newsroom/shared/webhook-endpoint-commands";
import { type TObject, Type } from "@sinclair/typebox";
import { MemberIn } from "../identity/members/model.ts";
import { KeyCreateIn } from "../keys/model.ts";
import { OrganizationCreateIn, OrganizationUpdateIn } from "../organizations/model.ts";
import { PreviewLinkCreateIn } from "../preview-links/model.ts";
import { HostnameIn, SiteCreateIn } from "../sites/model.ts";
import { StoryCreateIn, StoryVersionIn, TransitionIn } from "../stories/model.ts";

/**
 * One CLI command: an internal API route. `ids` are the path identifiers, given first;
 * `positional` are body fields given after them; every other body field is a flag, read from the
 * route's own schema (so the CLI takes exactly what the route does).
 */
export interface Command {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: (ids: string[]) => string;
  ids: string[];
  positional?: string[];
  /** The body schema (POST, PATCH) or the query schema (GET). */
  schema?: TObject;
  summary: string;
}

const StoryListQuery = Type.Object({
  status: Type.Optional(Type.Array(Type.Union(STORY_STATUSES.map((s) => Type.Literal(s))))),
});
const SandboxSeedIn = Type.Object({
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});

export const COMMANDS: Record<string, Command> = {
  "org-list": { method: "GET", path: () => "/orgs", ids: [], summary: "every organization" },
  "org-create": {
    method: "POST",
    path: () => "/orgs",
    ids: [],
    positional: ["slug", "name"],
    schema: OrganizationCreateIn,
    summary: "a new organization",
  },
  "org-get": {
    method: "GET",
    path: ([org]) => `/orgs/${org}`,
    ids: ["org"],
    summary: "one organization",
  },
  "org-update": {
    method: "PATCH",
    path: ([org]) => `/orgs/${org}`,
    ids: ["org"],
    schema: OrganizationUpdateIn,
    summary:
      "change an organization; --newsletter-origins replaces the list, --add-newsletter-origins and --remove-newsletter-origins change it",
  },
  "site-create": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/sites`,
    ids: ["org"],
    positional: ["site", "name", "publisher"],
    schema: SiteCreateIn,
    summary: "a hosted site of the organization",
  },
  "hostname-add": {
    method: "POST",
    path: ([site]) => `/sites/${site}/hostnames`,
    ids: ["site"],
    positional: ["hostname"],
    schema: HostnameIn,
    summary: "a hostname for a site (pending)",
  },
  "hostname-activate": {
    method: "POST",
    path: ([site, host]) => `/sites/${site}/hostnames/${host}/activate`,
    ids: ["site", "hostname"],
    summary: "mark a hostname active",
  },
  "member-list": {
    method: "GET",
    path: ([org]) => `/orgs/${org}/members`,
    ids: ["org"],
    summary: "the organization's members",
  },
  "member-add": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/members`,
    ids: ["org"],
    positional: ["email"],
    schema: MemberIn,
    summary: "give a person a role (or change it)",
  },
  "member-remove": {
    method: "DELETE",
    path: ([org, email]) => `/orgs/${org}/members/${email}`,
    ids: ["org", "email"],
    summary: "remove a person from the organization",
  },
  "key-list": {
    method: "GET",
    path: ([org]) => `/orgs/${org}/keys`,
    ids: ["org"],
    summary: "the organization's API keys (never their secrets)",
  },
  "key-create": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/keys`,
    ids: ["org"],
    schema: KeyCreateIn,
    summary: "a new API key; its secret is shown once",
  },
  "key-revoke": {
    method: "POST",
    path: ([id]) => `/keys/${id}/revoke`,
    ids: ["key id"],
    summary: "revoke a key at once",
  },
  "story-list": {
    method: "GET",
    path: ([org]) => `/orgs/${org}/stories`,
    ids: ["org"],
    schema: StoryListQuery,
    summary: "the organization's stories, latest change first",
  },
  "story-get": {
    method: "GET",
    path: ([story]) => `/stories/${story}`,
    ids: ["story"],
    summary: "one story (<org>/<slug> or its id)",
  },
  "story-create": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/stories`,
    ids: ["org"],
    schema: StoryCreateIn,
    summary: "a new story in draft",
  },
  "story-version": {
    method: "POST",
    path: ([story]) => `/stories/${story}/versions`,
    ids: ["story"],
    schema: StoryVersionIn,
    summary: "a new version of a story (<org>/<slug> or its id)",
  },
  "story-transition": {
    method: "POST",
    path: ([story]) => `/stories/${story}/transitions`,
    ids: ["story"],
    positional: ["action"],
    schema: TransitionIn,
    summary: "move a story (<org>/<slug> or its id) through the state machine",
  },
  "preview-link-list": {
    method: "GET",
    path: ([story]) => `/stories/${story}/preview_links`,
    ids: ["story"],
    summary: "a story's preview links (never their addresses)",
  },
  "preview-link-create": {
    method: "POST",
    path: ([story]) => `/stories/${story}/preview_links`,
    ids: ["story"],
    positional: ["label"],
    schema: PreviewLinkCreateIn,
    summary:
      "an embargoed preview link of an approved or scheduled story (<org>/<slug> or its id), --expires-at within 30 days; its address is shown once",
  },
  "preview-link-revoke": {
    method: "POST",
    path: ([id]) => `/preview_links/${id}/revoke`,
    ids: ["preview link id"],
    summary: "revoke a preview link at once",
  },
  "endpoint-list": {
    method: "GET",
    path: ([org]) => `/orgs/${org}/webhook_endpoints`,
    ids: ["org"],
    summary: "the organization's webhook endpoints",
  },
  "endpoint-create": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/webhook_endpoints`,
    ids: ["org"],
    positional: ["url"],
    schema: EndpointCreateIn,
    summary: "a webhook endpoint; its secret is shown once",
  },
  "endpoint-update": {
    method: "PATCH",
    path: ([id]) => `/webhook_endpoints/${id}`,
    ids: ["endpoint id"],
    schema: EndpointUpdateIn,
    summary: "change an endpoint's delivery options: its rate (deliveries per second) and ordering",
  },
  "endpoint-disable": {
    method: "POST",
    path: ([id]) => `/webhook_endpoints/${id}/disable`,
    ids: ["endpoint id"],
    summary: "stop deliveries to an endpoint",
  },
  "endpoint-enable": {
    method: "POST",
    path: ([id]) => `/webhook_endpoints/${id}/enable`,
    ids: ["endpoint id"],
    summary: "resume deliveries to an endpoint",
  },
  "endpoint-rotate-secret": {
    method: "POST",
    path: ([id]) => `/webhook_endpoints/${id}/rotate-secret`,
    ids: ["endpoint id"],
    summary:
      "a new secret for an endpoint, shown once; for 24 hours requests carry both the new and the old signature",
  },
  "endpoint-test": {
    method: "POST",
    path: ([id]) => `/webhook_endpoints/${id}/test`,
    ids: ["endpoint id"],
    summary:
      "send webhook.test to an endpoint and say whether it was accepted (status, duration); exit code 1 when not",
  },
  "delivery-list": {
    method: "GET",
    path: ([id]) => `/webhook_endpoints/${id}/deliveries`,
    ids: ["endpoint id"],
    summary: "an endpoint's latest deliveries",
  },
  "delivery-attempts": {
    method: "GET",
    path: ([id]) => `/webhook_deliveries/${id}/attempts`,
    ids: ["delivery id"],
    summary: "a delivery's attempts: time, status code, duration, the answer's first 1 KiB, reason",
  },
  "delivery-resend": {
    method: "POST",
    path: ([id]) => `/webhook_deliveries/${id}/resend`,
    ids: ["delivery id"],
    summary: "send a failed or delivered delivery again (a new attempt series, same webhook-id)",
  },
  "endpoint-recover": {
    method: "POST",
    path: ([id]) => `/webhook_endpoints/${id}/recover`,
    ids: ["endpoint id"],
    schema: EndpointRecoverIn,
    summary:
      "resend every failed delivery of an endpoint created since --since (at most 14 days back); twice resends nothing new",
  },
  "sandbox-seed": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/sandbox-seed`,
    ids: ["org"],
    schema: SandboxSeedIn,
    summary: "synthetic stories for an organization marked sandbox (never in production)",
  },
  "newsletter send": {
    method: "POST",
    path: ([org]) => `/orgs/${org}/newsletter/send`,
    ids: ["org"],
    schema: MailingSendIn,
    summary:
      "send an organization's newsletter: its stories of the week, once per subscriber of its SES contact list",
  },
  "digest send": {
    method: "POST",
    path: () => "/digest/send",
    ids: [],
    schema: MailingSendIn,
    summary: "send the weekly digest (the current ISO week when --week is left out)",
  },
};
