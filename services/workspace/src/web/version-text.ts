import type { StoryVersionRow } from "../stories/queries.ts";

/** A story version as lines of text, one per title, summary and body block, for comparing. */
export function versionLines(version: StoryVersionRow): string[] {
  const lines = [`Title: ${version.title ?? ""}`];
  if (version.summary) lines.push(`Summary: ${version.summary}`);
  for (const block of version.body) lines.push(...blockLines(block));
  return lines;
}

function blockLines(block: Record<string, unknown>): string[] {
  const text = typeof block.text === "string" ? block.text : "";
  switch (block.type) {
    case "paragraph":
      return text.split("\n");
    case "heading":
      return [`Heading: ${text}`];
    case "quote":
      return [`Quote: ${text}${block.attribution ? ` (${String(block.attribution)})` : ""}`];
    case "list":
      return (Array.isArray(block.items) ? block.items : []).map((item) => `- ${String(item)}`);
    default: {
      const { type, ...rest } = block;
      return [`${String(type)}: ${JSON.stringify(rest)}`];
    }
  }
}
