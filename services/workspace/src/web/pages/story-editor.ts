import { STORY_TYPES, type StoryStatus } from "@newsroom/shared/db/schema";
import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import { type PreviewPlace, previewPath } from "../../sites/public-pages.ts";
import type { DiffLine } from "../diff.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import {
  BLOCK_TYPES,
  type BlockDraft,
  type BlockType,
  emptyBlock,
  type StoryDraft,
} from "../story-draft.ts";
import { EDITOR_SCRIPT_PATH } from "../story-editor-script.ts";
import { navOf, statusLabel } from "./organizations.ts";

const BLOCK_LABELS: Record<BlockType, string> = {
  paragraph: "Paragraph",
  heading: "Heading",
  list: "List",
  quote: "Quote",
  image: "Image",
  embed: "Embed",
};

/** An image of the organization the image block may name. */
export interface AssetChoice {
  id: string;
  alt: string;
  url: string;
  cleared: boolean;
}

export interface EditorState {
  errors?: Record<string, string>;
  /** A refusal above the form. */
  problem?: string;
  /** The block whose removal waits for confirmation. */
  askRemove?: number;
  /** Another version was saved meanwhile: what it changed, from the version this edit began. */
  conflict?: { theirs: number; lines: DiffLine[] };
  /** Which redirect brought the person here (`?done=`). */
  done?: string;
}

export interface EditorData {
  access: OrgAccess;
  /** The story being edited; absent on the new story page. */
  story?: { id: string; status: StoryStatus; currentVersion: number | null };
  draft: StoryDraft;
  assets: AssetChoice[];
  /** The organization's newsrooms a preview can show the story on. */
  previewPlaces?: PreviewPlace[];
}

export const EDITOR_DONE: Record<string, string> = {
  saved: "Saved as a new version.",
  created: "The story is created as a draft.",
};

const MARKUP_HELP = html`<details class="markup-help"><summary>Formatting in text</summary>
<p>In paragraphs, headings, quotes, list items and captions: <code>*emphasis*</code>,
<code>**strong**</code> and <code>[words](https://example.com)</code> for a link. Anything else is
shown as typed.</p></details>`;

function select(
  id: string,
  name: string,
  label: string,
  options: { value: string; label: string }[],
  chosen: string,
  described?: string,
): Html {
  return html`<div class="field"><label for="${id}">${label}</label>
<select id="${id}" name="${name}"${described ? html` aria-describedby="${described}"` : ""}>${options.map(
    (option) =>
      html`<option value="${option.value}"${option.value === chosen ? html` selected` : ""}>${option.label}</option>`,
  )}</select></div>`;
}

function textarea(id: string, name: string, label: string, value: string, extra?: Html): Html {
  return html`<div class="field"><label for="${id}">${label}</label>
<textarea id="${id}" name="${name}"${extra ?? ""}>${value}</textarea></div>`;
}

function input(id: string, name: string, label: string, value: string, type = "text"): Html {
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="${type}" value="${value}"></div>`;
}

/** The fields of one block, named `block-{i}-{field}`. */
function blockFields(block: BlockDraft, i: number, assets: AssetChoice[], orgPath: string): Html {
  const id = (key: string) => `field-block-${i}-${key}`;
  const name = (key: string) => `block-${i}-${key}`;
  switch (block.type) {
    case "paragraph":
      return textarea(id("text"), name("text"), "Text", block.text);
    case "heading":
      return html`${input(id("text"), name("text"), "Heading", block.text)}
${select(
  id("level"),
  name("level"),
  "Level",
  ["2", "3", "4", "5", "6"].map((level) => ({ value: level, label: `Level ${level}` })),
  block.level,
)}`;
    case "list":
      return html`${textarea(id("items"), name("items"), "Items, one a line", block.items)}
<div class="field check"><input id="${id("ordered")}" name="${name("ordered")}" type="checkbox" value="yes"${block.ordered ? html` checked` : ""}>
<label for="${id("ordered")}">Numbered</label></div>`;
    case "quote":
      return html`${textarea(id("text"), name("text"), "Quotation", block.text)}
${input(id("attribution"), name("attribution"), "Attribution (optional)", block.attribution)}`;
    case "image":
      return html`${select(
        id("asset_id"),
        name("asset_id"),
        "Image of the organization",
        [
          { value: "", label: "None: use the address below" },
          ...assets.map((asset) => ({
            value: asset.id,
            label: `${asset.alt || asset.url}${asset.cleared ? "" : " (not cleared yet)"}`,
          })),
        ],
        block.asset_id,
        `${id("asset_id")}-hint`,
      )}
<p class="hint" id="${id("asset_id")}-hint"><a href="${orgPath}/assets">Upload an image</a>. An image
that is not cleared shows in the preview only, until an approver clears it.</p>
${input(id("url"), name("url"), "Or the image's address (https://...)", block.url, "url")}
${input(id("alt"), name("alt"), "Alternative text (what the image shows)", block.alt)}
${input(id("caption"), name("caption"), "Caption (optional)", block.caption)}`;
    case "embed":
      return html`${input(id("url"), name("url"), "Address to embed (https://...)", block.url, "url")}
${input(id("caption"), name("caption"), "Caption (optional)", block.caption)}`;
  }
}

function blockEditor(
  block: BlockDraft,
  i: number,
  count: number,
  data: EditorData,
  state: EditorState,
  orgPath: string,
): Html {
  const error = state.errors?.[`block-${i}`];
  const asking = state.askRemove === i;
  const legend = `Block ${i + 1}: ${BLOCK_LABELS[block.type]}`;
  const named = html`Block <span class="block-number">${i + 1}</span>: ${BLOCK_LABELS[block.type]}`;
  return html`<fieldset class="block${error ? " has-error" : ""}" data-block id="block-${i}"${error ? html` aria-describedby="block-${i}-error"` : ""}>
<legend><span data-handle class="handle" hidden aria-hidden="true" title="Drag to move; or Alt+Arrow keys">⠿</span>${named}</legend>
<input type="hidden" name="block-${i}-type" value="${block.type}">
${error ? html`<p class="error" id="block-${i}-error">${error}</p>` : ""}
${blockFields(block, i, data.assets, orgPath)}
<div class="actions block-actions">
  <button type="submit" class="secondary" name="op" value="up:${i}" data-move="up"${i === 0 ? html` disabled` : ""}>Move up<span class="visually-hidden"> ${named}</span></button>
  <button type="submit" class="secondary" name="op" value="down:${i}" data-move="down"${i === count - 1 ? html` disabled` : ""}>Move down<span class="visually-hidden"> ${named}</span></button>
  <button type="submit" class="secondary" name="op" value="ask-remove:${i}" data-remove>Remove<span class="visually-hidden"> ${named}</span></button>
</div>
${
  asking
    ? html`<div class="notice error" role="alert"><p>Remove ${legend}? What it holds is lost when you save.</p>
<div class="actions"><button type="submit" class="danger" name="op" value="remove:${i}">Remove the block</button>
<button type="submit" class="secondary" name="op" value="keep">Keep it</button></div></div>`
    : ""
}
</fieldset>`;
}

/** The new story and edit pages: one form, posted for every block step and for Save. */
export function storyEditorPage(who: Visitor, data: EditorData, state: EditorState = {}): Html {
  const { draft, story, access } = data;
  const orgPath = `/app/orgs/${encodeURIComponent(access.organization.slug)}`;
  const action = story ? `/app/stories/${story.id}/edit` : `${orgPath}/stories/new`;
  const errors = state.errors ?? {};
  const count = draft.blocks.length;
  const title = story ? `Edit: ${draft.title || "untitled"}` : "New story";
  const approvedNote =
    story && (story.status === "approved" || story.status === "scheduled")
      ? notice(
          "info",
          `This story is ${story.status}. Saving writes a new version and sends it back to draft: it needs another review before it is published.`,
        )
      : "";
  const conflict = state.conflict
    ? html`<section class="notice error" role="alert" aria-labelledby="conflict"><h2 id="conflict">Someone else saved version ${state.conflict.theirs} meanwhile</h2>
<p>Nothing was saved. What their version changed, from the version you started from:</p>
<ul class="changes">${state.conflict.lines
        .filter((line) => line.kind !== "same")
        .map((line) =>
          line.kind === "removed"
            ? html`<li><del>Removed: ${line.text}</del></li>`
            : html`<li><ins>Added: ${line.text}</ins></li>`,
        )}</ul>
<p>Your text is kept below. Save again to write it over their version, or <a href="${action}">start again from theirs</a>.</p></section>`
    : "";
  const typeField = story
    ? html`<p>Type: ${statusLabel(draft.type)} · Address: <code>${draft.slug}</code></p>
<input type="hidden" name="type" value="${draft.type}"><input type="hidden" name="slug" value="${draft.slug}">`
    : html`${select(
        "field-type",
        "type",
        "Type",
        STORY_TYPES.map((type) => ({ value: type, label: statusLabel(type) })),
        draft.type,
      )}
${field({ name: "title", label: "Title", value: draft.title, error: errors.title, required: true })}
${field({
  name: "slug",
  label: "Address (slug)",
  value: draft.slug,
  error: errors.slug,
  hint: "Lower-case words joined by hyphens; left empty, it is made from the title.",
})}`;
  const errorCount = Object.keys(errors).length;
  return layout(
    who,
    title,
    html`${state.problem ? notice("error", state.problem) : ""}
${errorCount > 0 ? notice("error", "Nothing was saved: see the fields marked below.") : ""}
${state.done && EDITOR_DONE[state.done] ? notice("info", EDITOR_DONE[state.done]!) : ""}
${conflict}
${approvedNote}
<form method="post" action="${action}" novalidate class="story-editor" data-editor>
${csrfInput(who)}
<button type="submit" name="op" value="save" hidden tabindex="-1">Save</button>
${story ? html`<input type="hidden" name="base_version" value="${draft.baseVersion ?? ""}">` : ""}
<input type="hidden" name="block_count" value="${count}">
${typeField}
${story ? field({ name: "title", label: "Title", value: draft.title, error: errors.title, required: true }) : ""}
<div class="field${errors.summary ? " has-error" : ""}"><label for="field-summary">Summary (optional)</label>
<textarea id="field-summary" name="summary"${errors.summary ? html` aria-invalid="true" aria-describedby="field-summary-error"` : ""}>${draft.summary}</textarea>
${errors.summary ? html`<p class="error" id="field-summary-error">${errors.summary}</p>` : ""}</div>
${field({
  name: "topics",
  label: "Topics (optional)",
  value: draft.topics,
  error: errors.topics,
  hint: "Separated by commas, such as: community, awards.",
})}
<div class="field check"><input id="field-featured" name="featured" type="checkbox" value="yes"${draft.featured ? html` checked` : ""}>
<label for="field-featured">Featured on the newsroom</label></div>
${
  !story || draft.type === "in_the_news"
    ? field({
        name: "external_url",
        label: "Coverage address (In the news only)",
        type: "url",
        value: draft.external_url,
        error: errors.external_url,
        hint: "For an In the news story: where the coverage is (https://...).",
      })
    : ""
}
<section aria-labelledby="body-heading"><h2 id="body-heading">Body</h2>
${MARKUP_HELP}
${count === 0 ? html`<p>No blocks yet: add one below.</p>` : ""}
<div data-blocks>${draft.blocks.map((block, i) => blockEditor(block, i, count, data, state, orgPath))}</div>
<div class="actions add-block">
${select(
  "field-add-type",
  "add_type",
  "New block",
  BLOCK_TYPES.map((type) => ({ value: type, label: BLOCK_LABELS[type] })),
  "paragraph",
)}
<button type="submit" class="secondary" name="op" value="add">Add the block</button>
</div>
</section>
<div class="actions">
<button type="submit" name="op" value="save">${story ? "Save a new version" : "Create the story"}</button>
${story ? html`<a href="/app/stories/${story.id}">Back to the story</a>` : html`<a href="${orgPath}/stories">Cancel</a>`}
</div>
</form>
${story ? submitForm(who, data) : ""}
${story && data.previewPlaces ? previewLinks(story.id, story.currentVersion, data.previewPlaces) : ""}
<p id="editor-status" role="status" class="visually-hidden"></p>
${BLOCK_TYPES.map(
  (type) =>
    html`<template data-block-template="${type}">${blockEditor(emptyBlock(type), count, count + 1, data, {}, orgPath)}</template>`,
)}
<script src="${EDITOR_SCRIPT_PATH}" defer></script>`,
    { org: navOf(access, "stories") },
  );
}

/** Submit the saved version for review, when the story's status takes it. */
function submitForm(who: Visitor, data: EditorData): Html {
  const story = data.story!;
  if (!["draft", "ai_generated", "rejected"].includes(story.status)) return html``;
  return html`<section aria-labelledby="submit-heading"><h2 id="submit-heading">Review</h2>
<form method="post" action="/app/stories/${story.id}/submit">${csrfInput(who)}
<p>Send the saved version ${story.currentVersion} to an approver. Save your changes first.</p>
<button type="submit">Submit for review</button></form></section>`;
}

function previewLinks(storyId: string, version: number | null, places: PreviewPlace[]): Html {
  if (version === null) return html``;
  return html`<section aria-labelledby="preview-heading"><h2 id="preview-heading">Preview</h2>
<p>The saved version ${version} as readers will see it (save your changes first):</p>
<ul>${places.map((place) => html`<li><a href="${previewPath(storyId, version, place)}">On ${place.name}</a></li>`)}</ul></section>`;
}
