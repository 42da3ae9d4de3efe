import type { MemberRole } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import { can, type PermissionAction } from "../identity/members/permissions.ts";
import { CSRF_FIELD } from "./csrf.ts";
import type { Visitor } from "./kit.ts";

/** The organization a page belongs to, for the navigation. */
export interface OrgNav {
  slug: string;
  name: string;
  /** The page of the organization's navigation that is shown, for aria-current. */
  current?:
    | "overview"
    | "stories"
    | "approvals"
    | "assets"
    | "newsletter"
    | "sites"
    | "members"
    | "audit"
    | "keys"
    | "webhook-endpoints"
    | "cms-connections"
    | "oauth-clients"
    | "sso";
  /** The person's role there: links to pages it may not open are left out. */
  role?: MemberRole;
  /** Acting as staff: the single sign-on settings are theirs alone. */
  staff?: boolean;
}

export function csrfInput(who: Visitor): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${who.csrfToken}">`;
}

function orgLinks(org: OrgNav): Html {
  const link = (key: OrgNav["current"], href: string, label: string) =>
    html`<li><a href="${href}"${org.current === key ? html` aria-current="page"` : ""}>${label}</a></li>`;
  const base = `/app/orgs/${encodeURIComponent(org.slug)}`;
  const allowed = (action: PermissionAction) => org.role !== undefined && can(org.role, action);
  return html`<nav aria-label="${org.name}"><ul class="tabs">
    ${link("overview", base, "Overview")}
    ${link("stories", `${base}/stories`, "Stories")}
    ${link("approvals", `${base}/approvals`, "Approvals")}
    ${link("assets", `${base}/assets`, "Images")}
    ${allowed("newsletter.manage") ? link("newsletter", `${base}/newsletter`, "Newsletter") : ""}
    ${allowed("sites.manage") ? link("sites", `${base}/sites`, "Sites") : ""}
    ${allowed("members.manage") ? link("members", `${base}/members`, "Members") : ""}
    ${allowed("audit.view") ? link("audit", `${base}/audit`, "Audit log") : ""}
    ${allowed("key.create") ? link("keys", `${base}/keys`, "API keys") : ""}
    ${allowed("endpoint.create") ? link("webhook-endpoints", `${base}/webhook-endpoints`, "Webhook endpoints") : ""}
    ${allowed("cms.manage") ? link("cms-connections", `${base}/cms-connections`, "CMS connections") : ""}
    ${allowed("oauth_client.manage") ? link("oauth-clients", `${base}/oauth-clients`, "OAuth applications") : ""}
    ${
      // House owners only: acting as staff, the role is the house role.
      org.staff && org.role === "owner" ? link("sso", `${base}/sso`, "Single sign-on") : ""
    }
  </ul></nav>`;
}

/**
 * Every page: a skip link, the header with the main navigation and sign-out, one `main`
 * landmark. `title` is the page's h1 and the start of its <title>.
 */
export function layout(
  who: Visitor | null,
  title: string,
  main: Html,
  options: { org?: OrgNav } = {},
): Html {
  const person = who?.signedIn?.person;
  const account = person
    ? html`<p class="who">Signed in as <strong>${person.email}</strong></p>
      <form method="post" action="/app/sign-out" class="inline">${csrfInput(who!)}
        <button type="submit" class="link">Sign out</button></form>
      <a href="/app/sign-out-everywhere">Sign out everywhere</a>`
    : "";
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Newsroom workspace</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="/app/styles.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <nav aria-label="Main"><a class="brand" href="/app/">Newsroom workspace</a>
    ${person ? html`<a href="/app/">Organizations</a> <a href="/app/applications">Your applications</a>` : ""}</nav>
  <div class="account">${account}</div>
</header>
${options.org ? orgLinks(options.org) : ""}
<main id="main" tabindex="-1">
<h1>${title}</h1>
${who?.done ? notice("info", who.done) : ""}
${main}
</main>
<footer><p>Newsroom workspace</p></footer>
</body>
</html>`;
}

/**
 * A labelled input with its error beside it (linked by aria-describedby), for every form.
 */
export function field(options: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  extra?: Html;
}): Html {
  const id = `field-${options.name}`;
  const described = [options.hint ? `${id}-hint` : "", options.error ? `${id}-error` : ""].filter(
    Boolean,
  );
  return html`<div class="field${options.error ? " has-error" : ""}">
  <label for="${id}">${options.label}</label>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ""}
  <input id="${id}" name="${options.name}" type="${options.type ?? "text"}"
    value="${options.value ?? ""}"${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""}${
      options.required ? html` required` : ""
    }${described.length > 0 ? html` aria-describedby="${described.join(" ")}"` : ""}${
      options.error ? html` aria-invalid="true"` : ""
    }${options.extra ?? ""}>
  ${options.error ? html`<p class="error" id="${id}-error">${options.error}</p>` : ""}
</div>`;
}

/** A short message at the top of a page's content (role=alert for errors). */
export function notice(kind: "error" | "info", text: string): Html {
  return kind === "error"
    ? html`<div class="notice error" role="alert"><p>${text}</p></div>`
    : html`<div class="notice" role="status"><p>${text}</p></div>`;
}

/**
 * The confirmation step of a destructive action, without script: a page that says what will
 * happen, with the form that does it and a way back.
 */
export function confirmPage(
  who: Visitor,
  options: {
    title: string;
    question: string;
    action: string;
    button: string;
    back: string;
    /** Hidden fields the action needs, sent along with the confirmation. */
    fields?: Record<string, string>;
  },
): Html {
  const hidden = Object.entries(options.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return layout(
    who,
    options.title,
    html`<p>${options.question}</p>
<form method="post" action="${options.action}">${csrfInput(who)}${hidden}
  <input type="hidden" name="confirm" value="yes">
  <button type="submit" class="danger">${options.button}</button>
  <a class="button secondary" href="${options.back}">Cancel</a>
</form>`,
  );
}
