import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The blocks of a story body: the only shapes the workspace stores, and the ones the public item,
 * search documents and feeds render. Text blocks carry words; image and embed blocks name an asset
 * by `asset_id` or by URL (shown publicly only when the asset is cleared).
 */
const Text = (maxLength: number) => T.String({ minLength: 1, maxLength });
const Closed = { additionalProperties: false } as const;
const HttpUrl = T.String({ pattern: "^https?://[^\\s]+$", maxLength: 2048 });

export const ParagraphBlock = T.Object(
  { type: T.Literal("paragraph"), text: Text(20_000) },
  Closed,
);
export const HeadingBlock = T.Object(
  {
    type: T.Literal("heading"),
    text: Text(300),
    level: T.Optional(T.Integer({ minimum: 2, maximum: 6 })),
  },
  Closed,
);
export const QuoteBlock = T.Object(
  { type: T.Literal("quote"), text: Text(5_000), attribution: T.Optional(Text(300)) },
  Closed,
);
export const ListBlock = T.Object(
  {
    type: T.Literal("list"),
    items: T.Array(Text(2_000), { minItems: 1, maxItems: 200 }),
    ordered: T.Optional(T.Boolean()),
  },
  Closed,
);
const Media = { caption: T.Optional(Text(1_000)), alt: T.Optional(T.String({ maxLength: 300 })) };
export const ImageBlock = T.Union([
  T.Object({ type: T.Literal("image"), asset_id: T.String({ format: "uuid" }), ...Media }, Closed),
  T.Object({ type: T.Literal("image"), url: HttpUrl, ...Media }, Closed),
]);
export const EmbedBlock = T.Object(
  { type: T.Literal("embed"), url: HttpUrl, caption: T.Optional(Text(1_000)) },
  Closed,
);

export const StoryBlock = T.Union([
  ParagraphBlock,
  HeadingBlock,
  QuoteBlock,
  ListBlock,
  ImageBlock,
  EmbedBlock,
]);
export type StoryBlock = Static<typeof StoryBlock>;

export const StoryBody = T.Array(StoryBlock, { maxItems: 500 });
export type StoryBody = Static<typeof StoryBody>;

/** Plain text as paragraphs: one paragraph block per run of text between blank lines. */
export function paragraphsOf(text: string): StoryBlock[] {
  return text
    .split(/\r?\n[ \t]*\r?\n/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => ({ type: "paragraph" as const, text: part }));
}
