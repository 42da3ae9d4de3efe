import { escapeHtml } from "../html.ts";

/**
 * A story body (an array of blocks such as `{ type: "paragraph", text }`) as plain text and as
 * minimal HTML with every text escaped. Blocks without text (images, embeds) are left out: a feed
 * carries words, not assets that may not be cleared.
 */
type Block = Record<string, unknown>;

export { escapeHtml };

function textOf(block: Block): string | null {
  return typeof block.text === "string" && block.text.trim() !== "" ? block.text : null;
}

function itemsOf(block: Block): string[] {
  return Array.isArray(block.items)
    ? block.items.filter((item): item is string => typeof item === "string")
    : [];
}

function headingLevel(block: Block): number {
  const level = typeof block.level === "number" ? Math.trunc(block.level) : 2;
  return Math.min(6, Math.max(2, level));
}

export function bodyText(body: Block[]): string {
  const parts: string[] = [];
  for (const block of body) {
    if (block.type === "list") {
      const items = itemsOf(block);
      if (items.length > 0) parts.push(items.map((item) => `- ${item}`).join("\n"));
      continue;
    }
    const text = textOf(block);
    if (text) parts.push(text);
  }
  return parts.join("\n\n");
}

export function bodyHtml(body: Block[]): string {
  const parts: string[] = [];
  for (const block of body) {
    if (block.type === "list") {
      const items = itemsOf(block);
      if (items.length === 0) continue;
      const tag = block.ordered === true ? "ol" : "ul";
      parts.push(
        `<${tag}>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join("")}</${tag}>`,
      );
      continue;
    }
    const text = textOf(block);
    if (!text) continue;
    if (block.type === "heading") {
      const level = headingLevel(block);
      parts.push(`<h${level}>${escapeHtml(text)}</h${level}>`);
    } else if (block.type === "quote") {
      parts.push(`<blockquote><p>${escapeHtml(text)}</p></blockquote>`);
    } else {
      parts.push(`<p>${escapeHtml(text)}</p>`);
    }
  }
  return parts.join("\n");
}
