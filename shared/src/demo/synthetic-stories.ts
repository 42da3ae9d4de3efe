import { STORY_TYPES, type StoryType } from "../db/schema.ts";

/**
 * Synthetic, deterministic story content for the demo data and sandbox organizations.
 * Same seed, same stories.
 */
const SUBJECTS = [
  "Regional transit",
  "Open data",
  "Community energy",
  "Water quality",
  "Digital services",
  "Urban forests",
  "Local archives",
  "Clean air",
  "Public libraries",
  "Cycling routes",
  "Heritage sites",
  "Youth programmes",
];
const ACTIONS = [
  "expands to three new districts",
  "publishes its first annual report",
  "opens a call for partners",
  "reaches a milestone",
  "launches a public consultation",
  "shares early results",
  "names a new advisory board",
  "announces a spring schedule",
];
const TOPICS = [
  "sustainability",
  "technology",
  "community",
  "policy",
  "culture",
  "research",
  "partnerships",
];

function rng(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

export interface SyntheticStory {
  type: StoryType;
  slug: string;
  title: string;
  summary: string;
  body: Record<string, unknown>[];
  topics: string[];
  externalUrl: string | null;
  featured: boolean;
  /** Days before now of its publication, for spreading dates. */
  ageDays: number;
}

export function syntheticStories(count: number, seed = 1, slugPrefix = ""): SyntheticStory[] {
  const random = rng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const out: SyntheticStory[] = [];
  for (let i = 0; i < count; i++) {
    const type = STORY_TYPES[i % STORY_TYPES.length]!;
    const title = `${pick(SUBJECTS)} ${pick(ACTIONS)}`;
    const slug = `${slugPrefix}${title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")}-${i + 1}`;
    const first = pick(TOPICS);
    const second = pick(TOPICS);
    const summary = `${title}. A short synthetic summary for demonstration (${i + 1}).`;
    out.push({
      type,
      slug,
      title,
      summary,
      body:
        type === "in_the_news"
          ? []
          : [
              { type: "heading", level: 2, text: title },
              { type: "paragraph", text: summary },
              {
                type: "paragraph",
                text: "This text is synthetic. It stands in for a real story so that every route has something to show.",
              },
            ],
      topics: first === second ? [first] : [first, second],
      externalUrl: type === "in_the_news" ? `https://press.example.com/coverage/${i + 1}` : null,
      featured: i % 11 === 0,
      ageDays: i * 1.5 + random(),
    });
  }
  return out;
}
