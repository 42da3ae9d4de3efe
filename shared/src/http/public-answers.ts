/**
 * What public reads tell the gateway's answer cache (the one cache of public answers) beside
 * `Cache-Tag`: the organization whose content an answer shows. It tags every answer with its
 * organization, so that a change of a whole organization drops its answers and no other's. The header travels only between public-read and the gateway, which
 * removes it before answering.
 */
export const ANSWER_ORGANIZATION_HEADER = "x-answer-organization";

/** The tag every answer of an organization carries (`unknown` for answers of none). */
export function organizationTag(organizationId: string | null): string {
  return `organization:${organizationId ?? "unknown"}`;
}

/** The tags an answer is kept under: its `Cache-Tag` purge keys and its organization's tag. */
export function answerTags(cacheTag: string | null, organizationId: string | null): string[] {
  const tags = cacheTag ? cacheTag.split(",").map((tag) => tag.trim()) : [];
  tags.push(organizationTag(organizationId));
  return tags;
}

/**
 * The longest request target a cache keeps an answer by (or remembers, KnownTargets); the
 * longest valid public-read target is about 600 characters, and unknown parameters are ignored,
 * so a client could pad one.
 */
export const MAX_KEPT_TARGET_LENGTH = 1_024;
