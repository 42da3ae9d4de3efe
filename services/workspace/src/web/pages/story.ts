import type { CmsWriteOut } from "@newsroom/shared/cms-connection-commands";
import { type Html, html } from "@newsroom/shared/html";
import { renderBody } from "@newsroom/shared/story-body-html";
import type { StoryRow } from "@newsroom/shared/story-records";
import type { OrgAccess } from "../../identity/members/access.ts";
import { type PreviewPlace, type PublicPage, previewPath } from "../../sites/public-pages.ts";
import type { StoryVersionRow, storyDecisions, storyEvents } from "../../stories/queries.ts";
import { NEW_VERSION_ALLOWED, TRANSITIONS } from "../../stories/state-machine.ts";
import { type DiffLine, diffLines } from "../diff.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, layout, notice } from "../layout.ts";
import { inZone, timeZoneScriptTag, timeZoneSelect } from "../time-zones.ts";
import { versionLines } from "../version-text.ts";
import { navOf, statusBadge } from "./organizations.ts";
import {
  type PreviewLinkFormState,
  type PreviewLinksData,
  previewLinksSection,
} from "./preview-links.ts";

export interface StoryPageData {
  access: OrgAccess;
  story: StoryRow;
  versions: StoryVersionRow[];
  decisions: Awaited<ReturnType<typeof storyDecisions>>;
  events: Awaited<ReturnType<typeof storyEvents>>;
  /** Whether the person's role may approve or reject. */
  mayDecide: boolean;
  /** Whether the person's role may publish and unpublish. */
  mayPublish: boolean;
  /** Whether the person's role may write new versions and submit them. */
  mayEdit: boolean;
  /** The current version's body with its images, as readers will see it (uncleared ones marked). */
  reading: Record<string, unknown>[];
  /** The organization's newsrooms, for the previews of each version. */
  previewPlaces: PreviewPlace[];
  /** Where readers find the story, while it is published. */
  publicPages: PublicPage[];
  /** The story's preview links, for those who may make them (else null). */
  previewLinks: PreviewLinksData | null;
  /** The zone the person's times are shown in (`?tz=`, UTC unless given), and whether it was given. */
  timeZone: { zone: string; given: boolean };
  /** The story's writes into the organization's CMS connections, newest first (null: unknown). */
  cmsWrites?: CmsWriteOut[] | null;
}

export interface DecisionFormState {
  note?: string;
  noteError?: string;
  /** A refusal shown above the page (the story moved on meanwhile). */
  problem?: string;
  /** The preview link form, given again with its errors. */
  previewLink?: PreviewLinkFormState;
  /** The schedule form as sent, and why it was refused (beside its fields). */
  schedule?: { date: string; time: string; zone: string; error: string };
}

const when = (at: Date) =>
  html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;

function side(lines: DiffLine[], kind: "removed" | "added", label: string): Html {
  const marked = kind === "removed" ? "Removed" : "Added";
  return html`<section aria-label="${label}"><h3>${label}</h3><ol>${lines
    .filter((line) => line.kind === "same" || line.kind === kind)
    .map((line) =>
      line.kind === "same"
        ? html`<li>${line.text}</li>`
        : kind === "removed"
          ? html`<li><del><span class="marker" aria-hidden="true">− </span><span class="visually-hidden">${marked}: </span>${line.text}</del></li>`
          : html`<li><ins><span class="marker" aria-hidden="true">+ </span><span class="visually-hidden">${marked}: </span>${line.text}</ins></li>`,
    )}</ol></section>`;
}

/** The current version beside the last approved one, changed lines marked on each side. */
function comparison(data: StoryPageData): Html {
  const current = data.versions.find((v) => v.version === data.story.currentVersion);
  const approved = data.versions.find((v) => v.version === data.story.approvedVersion);
  if (!current) return html`<p>This story has no version yet.</p>`;
  if (!approved) {
    return html`<p>No version has been approved yet: the whole current version is new.</p>
<div class="compare">${side(diffLines([], versionLines(current)), "added", `Current (version ${current.version})`)}</div>`;
  }
  if (approved.version === current.version) {
    return html`<p>The current version (${current.version}) is the approved one.</p>
<div class="compare">${side(
      diffLines([], versionLines(current)).map((l) => ({ ...l, kind: "same" as const })),
      "added",
      `Version ${current.version}`,
    )}</div>`;
  }
  const lines = diffLines(versionLines(approved), versionLines(current));
  return html`<div class="compare">
${side(lines, "removed", `Last approved (version ${approved.version})`)}
${side(lines, "added", `Current (version ${current.version})`)}
</div>`;
}

function decisionForms(who: Visitor, data: StoryPageData, state: DecisionFormState): Html {
  if (data.story.status !== "review_required") return html``;
  if (!data.mayDecide) {
    return html`<p>This story waits for review. Your role (${data.access.role}) cannot decide it.</p>`;
  }
  const base = `/app/stories/${data.story.id}`;
  const noteError = state.noteError;
  return html`<section aria-labelledby="decide"><h2 id="decide">Decision</h2>
<form method="post" action="${base}/approve">${csrfInput(who)}
  <p>Approve version ${data.story.currentVersion}: it may then be published.</p>
  <button type="submit">Approve</button>
</form>
<form method="post" action="${base}/reject" novalidate>${csrfInput(who)}
  <div class="field${noteError ? " has-error" : ""}">
    <label for="field-note">Note to the author (required to reject)</label>
    <textarea id="field-note" name="note" required${
      noteError ? html` aria-invalid="true" aria-describedby="field-note-error"` : ""
    }>${state.note ?? ""}</textarea>
    ${noteError ? html`<p class="error" id="field-note-error">${noteError}</p>` : ""}
  </div>
  <button type="submit" class="danger">Reject</button>
</form></section>`;
}

/** Publish an approved story; a published one: where it is read, and Unpublish (confirmed first). */
function releaseForms(who: Visitor, data: StoryPageData): Html {
  const { story } = data;
  const base = `/app/stories/${story.id}`;
  if (story.status === "published") {
    const links =
      data.publicPages.length === 0
        ? html`<p>No newsroom of this organization shows it yet: it has no enabled hosted site.</p>`
        : html`<ul>${data.publicPages.map(
            (page) => html`<li>On ${page.where}: <a href="${page.url}">${page.url}</a></li>`,
          )}</ul>`;
    return html`<section aria-labelledby="release"><h2 id="release">Published</h2>
${links}
${
  data.mayPublish
    ? html`<form method="post" action="${base}/unpublish">${csrfInput(who)}
  <button type="submit" class="danger">Unpublish</button>
</form>`
    : ""
}</section>`;
  }
  if (!TRANSITIONS.publish.from.includes(story.status)) return html``;
  if (!data.mayPublish) {
    return html`<p>This story is approved. Your role (${data.access.role}) cannot publish it.</p>`;
  }
  return html`<section aria-labelledby="release"><h2 id="release">Publishing</h2>
<form method="post" action="${base}/publish">${csrfInput(who)}
  <p>Publish the approved version ${story.approvedVersion}: it appears on the public newsroom.</p>
  <button type="submit">Publish</button>
</form></section>`;
}

/** `at` in the person's zone and in UTC, each in a `<time>`. */
function zonedAndUtc(at: Date, zone: string): Html {
  const utc = when(at);
  if (zone === "UTC") return utc;
  return html`<time datetime="${at.toISOString()}">${inZone(at, zone)}</time>, that is ${utc}`;
}

/**
 * A scheduled story: when it publishes (in the person's zone and UTC) and Unschedule (confirmed
 * first); an approved or failed one: the Schedule form. For `story.publish` roles.
 */
function scheduleForms(who: Visitor, data: StoryPageData, state: DecisionFormState): Html {
  const { story } = data;
  const base = `/app/stories/${story.id}`;
  const { zone, given } = data.timeZone;
  if (story.status === "scheduled" && story.publishAt) {
    return html`<section aria-labelledby="schedule"><h2 id="schedule">Scheduled</h2>
<p>Publishes at ${zonedAndUtc(story.publishAt, zone)}, by itself; until then it can be published now or unscheduled.</p>
<form method="get" action="${base}" class="inline">
  <label for="field-tz">Show the time in</label> ${timeZoneSelect({ id: "field-tz", name: "tz" }, zone, !given)}
  <button type="submit" class="secondary">Show</button>
</form>
${
  data.mayPublish
    ? html`<form method="post" action="${base}/unschedule">${csrfInput(who)}
  <button type="submit" class="danger">Unschedule</button>
</form>`
    : ""
}</section>`;
  }
  if (!TRANSITIONS.schedule.from.includes(story.status) || !data.mayPublish) return html``;
  if (story.approvedVersion === null || story.approvedVersion !== story.currentVersion)
    return html``;
  const sent = state.schedule;
  const error = sent?.error;
  const invalid = error ? html` aria-invalid="true" aria-describedby="field-publish-at-error"` : "";
  return html`<section aria-labelledby="schedule"><h2 id="schedule">Schedule</h2>
<form method="post" action="${base}/schedule" novalidate>${csrfInput(who)}
  <p>Publish the approved version ${story.approvedVersion} by itself at a time: at least a minute and at most a year ahead.</p>
  <fieldset class="field${error ? " has-error" : ""}"><legend>Publish at</legend>
    <label for="field-date">Date</label>
    <input type="date" id="field-date" name="date" required value="${sent?.date ?? ""}"${invalid}>
    <label for="field-time">Time</label>
    <input type="time" id="field-time" name="time" required value="${sent?.time ?? ""}"${invalid}>
    <label for="field-zone">Time zone</label>
    ${timeZoneSelect({ id: "field-zone", name: "time_zone" }, sent?.zone ?? zone, !sent && !given)}
    ${error ? html`<p class="error" id="field-publish-at-error">${error}</p>` : ""}
  </fieldset>
  <button type="submit">Schedule</button>
</form></section>`;
}

/** Why the scheduler left the story in `failed`. */
function failure(data: StoryPageData): Html {
  const { story } = data;
  if (story.status !== "failed" || !story.publishFailure) return html``;
  const due = story.publishAt
    ? ` It was due at ${story.publishAt.toISOString().slice(0, 16).replace("T", " ")} UTC.`
    : "";
  return notice("error", `Publication failed: ${story.publishFailure}${due}`);
}

/** Edit (a new version) and submit for review, for those whose role writes stories. */
function editActions(who: Visitor, data: StoryPageData): Html {
  const { story } = data;
  if (!data.mayEdit) return html``;
  const editable = NEW_VERSION_ALLOWED.includes(story.status);
  const submittable = TRANSITIONS.submit.from.includes(story.status);
  if (!editable && !submittable) return html``;
  return html`<div class="actions">${editable ? html`<a class="button secondary" href="/app/stories/${story.id}/edit">Edit the story</a>` : ""}
${
  submittable
    ? html`<form method="post" action="/app/stories/${story.id}/submit" class="inline">${csrfInput(who)}
<button type="submit">Submit version ${story.currentVersion} for review</button></form>`
    : ""
}</div>`;
}

/** /app/stories/{id}: versions, the comparison, decisions and events; the decision forms. */
const CMS_STATUS = { pending: "in flight", done: "written", failed: "failed" } as const;
const CMS_DID = {
  create: "created",
  update: "updated",
  unpublish: "unpublished",
  none: "nothing to do",
};

/** Each CMS connection's latest write of this story: written, in flight or failed, and why. */
function cmsSection(writes: CmsWriteOut[] | null): Html {
  if (!writes || writes.length === 0) return html``;
  const latest = new Map<string, CmsWriteOut>();
  for (const write of writes)
    if (!latest.has(write.connection_id)) latest.set(write.connection_id, write);
  return html`<section aria-labelledby="cms-writes"><h2 id="cms-writes">Client sites (CMS)</h2>
<table><thead><tr><th scope="col">Site</th><th scope="col">Write</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last problem</th></tr></thead>
<tbody>${[...latest.values()].map(
    (w) =>
      html`<tr><td>${w.remote_url ? html`<a href="${w.remote_url}">${w.url}</a>` : w.url}</td><td>${w.action}${
        w.performed ? ` (${CMS_DID[w.performed as keyof typeof CMS_DID] ?? w.performed})` : ""
      }</td><td>${CMS_STATUS[w.status]}</td><td>${String(w.attempts)}</td><td>${w.last_error ?? "none"}</td></tr>`,
  )}</tbody></table></section>`;
}

export function storyPage(who: Visitor, data: StoryPageData, state: DecisionFormState = {}): Html {
  const { story, access } = data;
  const current = data.versions.find((v) => v.version === story.currentVersion);
  const orgPath = `/app/orgs/${encodeURIComponent(access.organization.slug)}`;
  return layout(
    who,
    current?.title ?? story.slug,
    html`${state.problem ? notice("error", state.problem) : ""}
${failure(data)}
${state.noteError ? notice("error", "The story was not rejected: see the note below.") : ""}
<p>Status: ${statusBadge(story.status)} · Version ${story.currentVersion ?? "none"} ·
Approved version ${story.approvedVersion ?? "none"} · <a href="${orgPath}/stories">All stories</a></p>
${editActions(who, data)}
<div class="review">
<section aria-labelledby="reading"><h2 id="reading">As readers will see it</h2>
<article class="reading">${
      current
        ? html`<p class="reading-title"><strong>${current.title ?? ""}</strong></p>
${current.summary ? html`<p><em>${current.summary}</em></p>` : ""}
${renderBody(data.reading)}`
        : html`<p>This story has no version yet.</p>`
    }</article></section>
<section aria-labelledby="compare"><h2 id="compare">Changes since the last approval</h2>${comparison(data)}</section>
</div>
${decisionForms(who, data, state)}
${scheduleForms(who, data, state)}
${releaseForms(who, data)}
${cmsSection(data.cmsWrites ?? null)}
${data.previewLinks ? previewLinksSection(who, data.previewLinks, state.previewLink) : ""}
<section aria-labelledby="versions"><h2 id="versions">Versions</h2>
<table><thead><tr><th scope="col">Version</th><th scope="col">Title</th><th scope="col">Written</th><th scope="col">Preview</th></tr></thead>
<tbody>${data.versions.map(
      (v) =>
        html`<tr><td>${v.version}</td><td>${v.title ?? ""}</td><td>${when(v.createdAt)}</td><td>${data.previewPlaces.map(
          (place, i) =>
            html`${i > 0 ? ", " : ""}<a href="${previewPath(story.id, v.version, place)}">Version ${v.version} on ${place.name}</a>`,
        )}</td></tr>`,
    )}</tbody></table></section>
<section aria-labelledby="decisions"><h2 id="decisions">Decisions</h2>
${
  data.decisions.length === 0
    ? html`<p>No decisions yet.</p>`
    : html`<table><thead><tr><th scope="col">Decision</th><th scope="col">Version</th><th scope="col">By</th><th scope="col">Note</th><th scope="col">When</th></tr></thead>
<tbody>${data.decisions.map(
        (d) =>
          html`<tr><td>${d.decision}</td><td>${d.version ?? ""}</td><td>${d.email ?? "operator"} (${d.actorRole})</td><td>${d.note ?? ""}</td><td>${when(d.decidedAt)}</td></tr>`,
      )}</tbody></table>`
}</section>
<section aria-labelledby="events"><h2 id="events">Events</h2>
${
  data.events.length === 0
    ? html`<p>No events yet.</p>`
    : html`<ul>${data.events.map((e) => html`<li>${e.type}, ${when(e.createdAt)}</li>`)}</ul>`
}</section>
${timeZoneScriptTag}`,
    { org: navOf(access, undefined) },
  );
}
