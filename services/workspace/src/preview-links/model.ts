import type { previewLinks } from "@newsroom/shared/db/schema";
import { PREVIEW_LABEL_MAX_LENGTH } from "@newsroom/shared/preview-links";
import { iso } from "@newsroom/shared/records";
import { t } from "elysia";

export type PreviewLinkRow = Omit<typeof previewLinks.$inferSelect, "tokenHash">;

export const PreviewLinkCreateIn = t.Object({
  label: t.String({ minLength: 1, maxLength: PREVIEW_LABEL_MAX_LENGTH }),
  // Checked by `expiryOf`, which names the field in its 422 whatever is wrong with it.
  expires_at: t.String({ maxLength: 64 }),
});
export type PreviewLinkCreateIn = typeof PreviewLinkCreateIn.static;

/** The link record: never the token nor its hash (`url` only in the create answer). */
export function previewLinkOut(row: PreviewLinkRow) {
  return {
    object: "preview_link" as const,
    id: row.id,
    story_id: row.storyId,
    label: row.label,
    expires_at: iso(row.expiresAt),
    revoked_at: iso(row.revokedAt),
    first_opened_at: iso(row.firstOpenedAt),
    last_opened_at: iso(row.lastOpenedAt),
    opened_count: row.openedCount,
    created_at: iso(row.createdAt),
  };
}
