import { type Html, html } from "@newsroom/shared/html";
import { PREVIEW_LABEL_MAX_LENGTH, PREVIEW_MAX_DAYS } from "@newsroom/shared/preview-links";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { PreviewLinkRow } from "../../preview-links/model.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { copyScriptTag, secretGone, secretOnce } from "../secret-once.ts";
import { navOf } from "./organizations.ts";

const DAY_MS = 86_400_000;

/** A link as its list shows it: who made it, by their address (or "operator"). */
export interface PreviewLinkView extends PreviewLinkRow {
  creator: string;
}

export interface PreviewLinksData {
  storyId: string;
  /** Whether the story may get new links (approved or scheduled). */
  open: boolean;
  links: PreviewLinkView[];
  now: Date;
}

export interface PreviewLinkFormState {
  label?: string;
  expiresOn?: string;
  errors?: { label?: string; expires_on?: string };
  /** A refusal of the whole form (the story moved on, no newsroom). */
  problem?: string;
}

const when = (at: Date | null) =>
  at
    ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`
    : "never";

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** The first and last day a link may run until (the end of that day, UTC). */
export function expiryDays(now: Date): { first: string; last: string; usual: string } {
  return {
    first: dayOf(now),
    last: dayOf(new Date(now.getTime() + (PREVIEW_MAX_DAYS - 1) * DAY_MS)),
    usual: dayOf(new Date(now.getTime() + 7 * DAY_MS)),
  };
}

/**
 * The expiry a day in the form means: the end of that day, UTC (the next day's midnight). The
 * last day offered ends within 30 days of now; the service checks the limit again.
 */
export function expiryOfDay(day: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const start = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(start.getTime()) || dayOf(start) !== day) return null;
  return new Date(start.getTime() + DAY_MS).toISOString();
}

export function linkStatus(link: PreviewLinkRow, now: Date): "active" | "revoked" | "expired" {
  if (link.revokedAt) return "revoked";
  return link.expiresAt.getTime() <= now.getTime() ? "expired" : "active";
}

function linkTable(data: PreviewLinksData): Html {
  if (data.links.length === 0) return html`<p>No preview links yet.</p>`;
  return html`<table><caption class="visually-hidden">Preview links</caption>
<thead><tr><th scope="col">For</th><th scope="col">Expires</th><th scope="col">Created by</th>
<th scope="col">First opened</th><th scope="col">Last opened</th><th scope="col">Openings</th>
<th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${data.links.map((link) => {
    const status = linkStatus(link, data.now);
    return html`<tr><td>${link.label}</td><td>${when(link.expiresAt)}</td><td>${link.creator}</td>
<td>${when(link.firstOpenedAt)}</td><td>${when(link.lastOpenedAt)}</td><td>${link.openedCount}</td>
<td><span class="status">${status}</span></td><td>${
      status === "active"
        ? html`<a href="/app/preview-links/${link.id}/revoke">Revoke<span class="visually-hidden"> the link for ${link.label}</span></a>`
        : ""
    }</td></tr>`;
  })}</tbody></table>`;
}

function createForm(who: Visitor, data: PreviewLinksData, state: PreviewLinkFormState): Html {
  const errors = state.errors ?? {};
  const days = expiryDays(data.now);
  return html`<form method="post" action="/app/stories/${data.storyId}/preview-links" novalidate>${csrfInput(who)}
  <h3>Create a preview link</h3>
  ${field({
    name: "label",
    label: "For",
    hint: `Who the link is for, such as the journalist's outlet (up to ${PREVIEW_LABEL_MAX_LENGTH} characters).`,
    value: state.label,
    error: errors.label,
    required: true,
  })}
  ${field({
    name: "expires_on",
    label: "Works until the end of (UTC)",
    type: "date",
    hint: `A day from today to ${days.last}: at most ${PREVIEW_MAX_DAYS} days.`,
    value: state.expiresOn ?? days.usual,
    error: errors.expires_on,
    required: true,
    extra: html` min="${days.first}" max="${days.last}"`,
  })}
  <button type="submit">Create preview link</button>
</form>`;
}

/**
 * The story page's "Preview links" section, for those who may make them: a journalist gets the
 * approved version before publication, embargoed, at an address nobody can guess.
 */
export function previewLinksSection(
  who: Visitor,
  data: PreviewLinksData,
  state: PreviewLinkFormState = {},
): Html {
  if (!data.open && data.links.length === 0) return html``;
  return html`<section aria-labelledby="preview-links"><h2 id="preview-links">Preview links</h2>
${state.problem ? notice("error", state.problem) : ""}
<p>A preview link shows the approved version to someone outside the organization, such as a
journalist, as readers will see it, with an embargo banner. Nothing lists it and search engines
are told not to index it; it stops working when it expires or is revoked, and once the story is
published it leads to the public page. Each link records when it was opened, nothing about who.</p>
${linkTable(data)}
${data.open ? createForm(who, data, state) : html`<p>New links need the story approved or scheduled.</p>`}
</section>`;
}

/** The page a creation lands on: the address shown this once. */
export function previewLinkCreatedPage(
  who: Visitor,
  access: OrgAccess,
  link: PreviewLinkRow,
  url: string | null,
): Html {
  const back = `/app/stories/${link.storyId}`;
  return layout(
    who,
    "Your new preview link",
    html`${
      url
        ? html`${notice("info", "The preview link was created. Its address will not be shown again.")}
${secretOnce({ id: "preview-url", label: "Preview link", secret: url })}`
        : secretGone(`The address of the link for ${link.label}`, {
            href: back,
            label: "Back to the story",
          })
    }
<dl><dt>For</dt><dd>${link.label}</dd><dt>Works until</dt><dd>${when(link.expiresAt)}</dd></dl>
<p>Send it to the person it is for. Anyone with the address can read the story until it expires
or is revoked.</p>
<p><a href="${back}">Back to the story</a></p>
${copyScriptTag}`,
    { org: navOf(access, undefined) },
  );
}
