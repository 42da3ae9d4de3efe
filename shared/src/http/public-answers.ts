/**
 * What public reads tell the gateway's answer cache beside `Cache-Tag`: the organization whose
 * content an answer shows. Both caches of public answers (public-read's and the gateway's) tag
 * every answer with its organization, so that a change of a whole organization drops its
 * answers and no other's. The header travels only between public-read and the gateway, which
 * removes it before answering.
 */
export const ANSWER_ORGANIZATION_HEADER = "x-answer-organization";

/** The tag every answer of an organization carries (`unknown` for answers of none). */
export function organizationTag(organizationId: string | null): string {
  return `organization:${organizationId ?? "unknown"}`;
}
