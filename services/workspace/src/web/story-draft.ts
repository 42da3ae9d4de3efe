import { STORY_TYPES, type StoryType } from "@newsroom/shared/db/schema";
import { StoryBlock, type StoryBody } from "@newsroom/shared/story-body";
import { Value } from "@sinclair/typebox/value";
import { StoryCreateIn, StoryVersionIn } from "../stories/model.ts";
import type { StoryVersionRow } from "../stories/queries.ts";
import type { StoryCreateInput, StoryVersionInput } from "../stories/service.ts";
import { decodeForm } from "./form-decode.ts";
import type { FormFields } from "./kit.ts";

export const BLOCK_TYPES = ["paragraph", "heading", "list", "quote", "image", "embed"] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

/** A body block as its form fields hold it: text as typed, whatever the type. */
export interface BlockDraft {
  type: BlockType;
  text: string;
  level: string;
  /** A list's items, one a line. */
  items: string;
  ordered: boolean;
  attribution: string;
  asset_id: string;
  url: string;
  caption: string;
  alt: string;
}

/** What the editor form holds between posts, saved or not. */
export interface StoryDraft {
  type: StoryType;
  title: string;
  slug: string;
  summary: string;
  /** Topic slugs, comma-separated as typed. */
  topics: string;
  featured: boolean;
  external_url: string;
  blocks: BlockDraft[];
  /** The version the edit started from (edit page only). */
  baseVersion: number | null;
}

const MAX_BLOCKS = 500;

export function emptyBlock(type: BlockType): BlockDraft {
  return {
    type,
    text: "",
    level: "2",
    items: "",
    ordered: false,
    attribution: "",
    asset_id: "",
    url: "",
    caption: "",
    alt: "",
  };
}

const isBlockType = (value: string): value is BlockType =>
  (BLOCK_TYPES as readonly string[]).includes(value);

/** `Our new office!` → `our-new-office`: the slug proposed from a title. */
export function slugFromTitle(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 120)
    .replace(/-+$/, "");
}

/** The draft a posted editor form holds. */
export function draftOfForm(form: FormFields): StoryDraft {
  const type = form.text("type", 40);
  const count = Math.min(Number.parseInt(form.text("block_count", 6), 10) || 0, MAX_BLOCKS);
  const blocks: BlockDraft[] = [];
  for (let i = 0; i < count; i++) {
    const field = (name: string, max = 20_000) => form.text(`block-${i}-${name}`, max);
    const blockType = field("type", 20);
    if (!isBlockType(blockType)) continue;
    blocks.push({
      type: blockType,
      text: field("text"),
      level: field("level", 1),
      items: field("items", 400_000),
      ordered: field("ordered", 3) === "yes",
      attribution: field("attribution", 300),
      asset_id: field("asset_id", 36),
      url: field("url", 2048),
      caption: field("caption", 1000),
      alt: field("alt", 300),
    });
  }
  const base = Number.parseInt(form.text("base_version", 12), 10);
  return {
    type: (STORY_TYPES as readonly string[]).includes(type) ? (type as StoryType) : "press_release",
    title: form.text("title", 300),
    slug: form.text("slug", 120).toLowerCase(),
    summary: form.text("summary", 1000),
    topics: form.text("topics", 2000),
    featured: form.text("featured", 3) === "yes",
    external_url: form.text("external_url", 2048),
    blocks,
    baseVersion: Number.isInteger(base) && base > 0 ? base : null,
  };
}

/** The draft of a saved story, to edit it. */
export function draftOfStory(
  story: {
    type: StoryType;
    slug: string;
    featured: boolean;
    externalUrl: string | null;
    currentVersion: number | null;
  },
  version: StoryVersionRow | undefined,
  topics: string[],
): StoryDraft {
  return {
    type: story.type,
    title: version?.title ?? "",
    slug: story.slug,
    summary: version?.summary ?? "",
    topics: topics.join(", "),
    featured: story.featured,
    external_url: story.externalUrl ?? "",
    blocks: (version?.body ?? []).map(blockDraftOf),
    baseVersion: story.currentVersion,
  };
}

function blockDraftOf(block: Record<string, unknown>): BlockDraft {
  const type = typeof block.type === "string" && isBlockType(block.type) ? block.type : "paragraph";
  const string = (value: unknown) => (typeof value === "string" ? value : "");
  return {
    ...emptyBlock(type),
    text: string(block.text),
    level: typeof block.level === "number" ? String(block.level) : "2",
    items: Array.isArray(block.items) ? block.items.map(string).join("\n") : "",
    ordered: block.ordered === true,
    attribution: string(block.attribution),
    asset_id: string(block.asset_id),
    url: string(block.url),
    caption: string(block.caption),
    alt: string(block.alt),
  };
}

/** An editing step that re-renders the form (no save): add, move or remove a block. */
export type BlockStep =
  | { kind: "save" | "none" }
  | { kind: "add"; type: BlockType }
  | { kind: "up" | "down" | "ask-remove" | "remove"; index: number };

/** The step a pressed button names (`op`): Save when none is named (Enter in a field). */
export function stepOf(op: string, addType: string): BlockStep {
  if (op === "" || op === "save") return { kind: "save" };
  if (op === "add") return isBlockType(addType) ? { kind: "add", type: addType } : { kind: "none" };
  const match = /^(up|down|ask-remove|remove):(\d{1,3})$/.exec(op);
  if (!match) return { kind: "none" };
  return { kind: match[1] as "up" | "down" | "ask-remove" | "remove", index: Number(match[2]) };
}

/** The blocks after a step; asking to remove leaves them as they are (the page asks first). */
export function applyStep(blocks: BlockDraft[], step: BlockStep): BlockDraft[] {
  const next = [...blocks];
  if (step.kind === "add") {
    if (next.length < MAX_BLOCKS) next.push(emptyBlock(step.type));
    return next;
  }
  if (!("index" in step)) return next;
  const { index } = step;
  if (index < 0 || index >= next.length) return next;
  if (step.kind === "remove") next.splice(index, 1);
  const swap = step.kind === "up" ? index - 1 : step.kind === "down" ? index + 1 : -1;
  if (swap >= 0 && swap < next.length) [next[index], next[swap]] = [next[swap]!, next[index]!];
  return next;
}

/** A block as the body schema stores it: only the fields its type takes, empty ones left out. */
function storedBlock(block: BlockDraft): Record<string, unknown> {
  const optional = (value: string) => (value === "" ? undefined : value);
  switch (block.type) {
    case "paragraph":
      return { type: "paragraph", text: block.text };
    case "heading":
      return { type: "heading", text: block.text, level: Number(block.level) || 2 };
    case "list":
      return {
        type: "list",
        items: block.items
          .split(/\r?\n/)
          .map((item) => item.trim())
          .filter((item) => item !== ""),
        ordered: block.ordered,
      };
    case "quote":
      return { type: "quote", text: block.text, attribution: optional(block.attribution) };
    case "image": {
      const source = block.asset_id ? { asset_id: block.asset_id } : { url: block.url };
      return {
        type: "image",
        ...source,
        caption: optional(block.caption),
        alt: optional(block.alt),
      };
    }
    case "embed":
      return { type: "embed", url: block.url, caption: optional(block.caption) };
  }
}

const BLOCK_WORDING: Record<BlockType, string> = {
  paragraph: "Write the paragraph's text, or remove the block.",
  heading: "Write the heading (up to 300 characters), with a level from 2 to 6.",
  list: "Write at least one item, one a line.",
  quote: "Write the quotation (the attribution is up to 300 characters).",
  image: "Choose an image of the organization or paste its address (https://...).",
  embed: "Paste the address to embed (https://...).",
};

export type DraftErrors = Record<string, string>;

/** The body the draft's blocks make, or the blocks refused (by `block-{i}`). */
export function bodyOfDraft(
  draft: StoryDraft,
): { ok: true; body: StoryBody } | { ok: false; errors: DraftErrors } {
  const errors: DraftErrors = {};
  const body: StoryBody = [];
  draft.blocks.forEach((block, i) => {
    const stored = JSON.parse(JSON.stringify(storedBlock(block)));
    if (Value.Check(StoryBlock, stored)) body.push(stored);
    else errors[`block-${i}`] = BLOCK_WORDING[block.type];
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

const TOPIC_LIST = (topics: string) =>
  topics
    .split(",")
    .map((topic) => slugFromTitle(topic))
    .filter((topic) => topic !== "");

/**
 * The new story the draft makes, decided by the internal API's own schema (an empty slug is
 * proposed from the title), or the fields refused.
 */
export function createInputOfDraft(
  form: FormFields,
  draft: StoryDraft,
): { ok: true; input: StoryCreateInput } | { ok: false; errors: DraftErrors } {
  const body = bodyOfDraft(draft);
  const decoded = decodeForm(form, StoryCreateIn, {
    prepare(given) {
      given.slug = draft.slug || slugFromTitle(draft.title);
      given.topics = [...new Set(TOPIC_LIST(draft.topics))];
      given.featured = draft.featured;
      delete given.status;
      delete given.body;
      if (draft.type !== "in_the_news") delete given.external_url;
    },
    wording: {
      slug: "Use lower-case letters, digits and single hyphens (proposed from the title).",
      external_url: "Paste the coverage's address (https://...).",
      title: "Write a title (up to 300 characters).",
    },
  });
  const errors = { ...(decoded.ok ? {} : decoded.errors), ...(body.ok ? {} : body.errors) };
  if (!decoded.ok || !body.ok) return { ok: false, errors };
  return { ok: true, input: { ...decoded.value, body: body.body } };
}

/** A new version's fields, decided by the internal API's own schema, or the fields refused. */
export function versionInputOfDraft(
  form: FormFields,
  draft: StoryDraft,
): { ok: true; input: StoryVersionInput } | { ok: false; errors: DraftErrors } {
  const decoded = decodeForm(form, StoryVersionIn, {
    prepare(given) {
      delete given.body;
      delete given.topics;
      delete given.featured;
      delete given.external_url;
    },
    wording: { title: "Write a title (up to 300 characters)." },
  });
  const errors: DraftErrors = decoded.ok ? {} : { ...decoded.errors };
  if (draft.type === "in_the_news" && !/^https?:\/\/\S+$/.test(draft.external_url)) {
    errors.external_url = "Paste the coverage's address (https://...).";
  }
  const body = bodyOfDraft(draft);
  if (!body.ok) Object.assign(errors, body.errors);
  if (!decoded.ok || !body.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      ...decoded.value,
      summary: decoded.value.summary ?? null,
      body: body.body,
      topics: [...new Set(TOPIC_LIST(draft.topics))].slice(0, 20),
      featured: draft.featured,
      external_url: draft.type === "in_the_news" ? draft.external_url : undefined,
      base_version: draft.baseVersion ?? undefined,
    },
  };
}
