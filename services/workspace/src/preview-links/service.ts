import type { Db, Queryable } from "@newsroom/shared/db/index";
import {
  previewLinks,
  type StoryStatus,
  stories,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid, newId } from "@newsroom/shared/ids";
import {
  hashPreviewToken,
  makePreviewToken,
  PREVIEW_LABEL_MAX_LENGTH,
  PREVIEW_MAX_DAYS,
  previewLinkUrl,
} from "@newsroom/shared/preview-links";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { audit } from "../audit.ts";
import { type PublicAddresses, previewHome } from "../sites/public-pages.ts";
import type { PreviewLinkCreateIn, PreviewLinkRow } from "./model.ts";

const DAY_MS = 86_400_000;

/** A story gets preview links while its approved version waits for publication. */
export const PREVIEWABLE_STATUSES: readonly StoryStatus[] = ["approved", "scheduled"];

/** Every column but the token's hash, which never leaves the table. */
const linkColumns = {
  id: previewLinks.id,
  organizationId: previewLinks.organizationId,
  storyId: previewLinks.storyId,
  label: previewLinks.label,
  expiresAt: previewLinks.expiresAt,
  createdBy: previewLinks.createdBy,
  revokedAt: previewLinks.revokedAt,
  firstOpenedAt: previewLinks.firstOpenedAt,
  lastOpenedAt: previewLinks.lastOpenedAt,
  openedCount: previewLinks.openedCount,
  createdAt: previewLinks.createdAt,
};

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The link's expiry: an ISO 8601 date-time with its offset, in the future and at most 30 days
 * ahead. Anything else is a 422 naming `expires_at`.
 */
export function expiryOf(value: string, now: Date): Date {
  const refuse = (reason: string, message: string): never => {
    throw new ApiError("validation_failed", message, {
      fields: [{ field: "expires_at", reason, message }],
    });
  };
  const at = ISO_WITH_OFFSET.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) {
    return refuse("invalid", "Give a date and time with its offset, like 2026-12-01T09:00:00Z.");
  }
  if (at.getTime() <= now.getTime()) return refuse("in_the_past", "The expiry must be ahead.");
  if (at.getTime() > now.getTime() + PREVIEW_MAX_DAYS * DAY_MS) {
    return refuse("too_far", `A preview link lives at most ${PREVIEW_MAX_DAYS} days.`);
  }
  return at;
}

/** Who the link is for: 1 to 100 characters once trimmed, else a 422 naming `label`. */
export function labelOf(value: string): string {
  const label = value.trim();
  const refuse = (reason: string, message: string): never => {
    throw new ApiError("validation_failed", message, {
      fields: [{ field: "label", reason, message }],
    });
  };
  if (label === "") return refuse("empty", "Say who the link is for.");
  if (label.length > PREVIEW_LABEL_MAX_LENGTH) {
    return refuse("too_long", `Keep it to ${PREVIEW_LABEL_MAX_LENGTH} characters.`);
  }
  return label;
}

/**
 * Makes a preview link for a story in `approved` or `scheduled` (409 `invalid_transition`
 * otherwise: there is no approved version to show). The token is returned once, inside `url`;
 * only its SHA-256 is stored. The link lives on the organization's newsroom (`previewHome`).
 */
export async function createPreviewLink(
  db: Db,
  addresses: PublicAddresses,
  organization: { id: string; slug: string },
  storyId: string,
  input: PreviewLinkCreateIn,
  actor = "admin",
  now = new Date(),
): Promise<{ row: PreviewLinkRow; url: string }> {
  const expiresAt = expiryOf(input.expires_at, now);
  const label = labelOf(input.label);
  const home = await previewHome(db, addresses, organization);
  return db.transaction(async (tx) => {
    const [story] = await tx
      .select({ status: stories.status })
      .from(stories)
      .where(and(eq(stories.organizationId, organization.id), eq(stories.id, storyId)))
      .for("update");
    if (!story) throw new ApiError("not_found", "No such story.");
    if (!PREVIEWABLE_STATUSES.includes(story.status)) {
      throw new ApiError(
        "invalid_transition",
        `Preview links are for approved or scheduled stories; this one is ${story.status.replace(/_/g, " ")}.`,
      );
    }
    const token = makePreviewToken();
    const [row] = await tx
      .insert(previewLinks)
      .values({
        id: newId(),
        organizationId: organization.id,
        storyId,
        label,
        tokenHash: hashPreviewToken(token),
        expiresAt,
        createdBy: actor,
      })
      .returning(linkColumns);
    await audit(tx, organization.id, "preview_link.created", row!.id, actor);
    return { row: row!, url: previewLinkUrl(home, token) };
  });
}

/** Revokes a link at once and for good; revoking twice keeps the first time. */
export async function revokePreviewLink(
  db: Db,
  organizationId: string,
  linkId: string,
  actor = "admin",
): Promise<PreviewLinkRow> {
  return db.transaction(async (tx) => {
    const current = await findPreviewLink(tx, organizationId, linkId);
    if (!current) throw new ApiError("not_found", "No such preview link.");
    if (current.revokedAt) return current;
    const [row] = await tx
      .update(previewLinks)
      .set({ revokedAt: new Date() })
      .where(and(eq(previewLinks.organizationId, organizationId), eq(previewLinks.id, linkId)))
      .returning(linkColumns);
    await audit(tx, organizationId, "preview_link.revoked", linkId, actor);
    return row!;
  });
}

export async function findPreviewLink(
  db: Queryable,
  organizationId: string,
  linkId: string,
): Promise<PreviewLinkRow | null> {
  if (!isUuid(linkId)) return null;
  const [row] = await db
    .select(linkColumns)
    .from(previewLinks)
    .where(and(eq(previewLinks.organizationId, organizationId), eq(previewLinks.id, linkId)));
  return row ?? null;
}

/** A story's links, newest first. */
export function listPreviewLinks(
  db: Queryable,
  organizationId: string,
  storyId: string,
): Promise<PreviewLinkRow[]> {
  return db
    .select(linkColumns)
    .from(previewLinks)
    .where(and(eq(previewLinks.organizationId, organizationId), eq(previewLinks.storyId, storyId)))
    .orderBy(desc(previewLinks.createdAt), desc(previewLinks.id));
}

/** Who made each link, as people know them: the person's address, or "operator". */
export async function creatorsOf(
  db: Queryable,
  links: PreviewLinkRow[],
): Promise<Map<string, string>> {
  const personIds = [
    ...new Set(
      links.filter((l) => l.createdBy.startsWith("person:")).map((l) => l.createdBy.slice(7)),
    ),
  ].filter(isUuid);
  const people =
    personIds.length === 0
      ? []
      : await db
          .select({ id: workspacePeople.id, email: workspacePeople.email })
          .from(workspacePeople)
          .where(inArray(workspacePeople.id, personIds));
  const emails = new Map(people.map((person) => [`person:${person.id}`, person.email]));
  return new Map(links.map((link) => [link.id, emails.get(link.createdBy) ?? "operator"] as const));
}

/** The organization of a link its path names by id alone, or null. */
export async function organizationOfPreviewLink(db: Queryable, linkId: string) {
  if (!isUuid(linkId)) return null;
  const [row] = await db
    .select({ organizationId: previewLinks.organizationId })
    .from(previewLinks)
    .where(eq(previewLinks.id, linkId));
  return row?.organizationId ?? null;
}

/** One opening, as public reads announced it: the first and last time, and the count. */
export async function recordPreviewOpened(
  db: Queryable,
  organizationId: string,
  linkId: string,
  at: Date,
): Promise<void> {
  const time = sql`${at.toISOString()}::timestamptz`;
  await db
    .update(previewLinks)
    .set({
      firstOpenedAt: sql`least(coalesce(${previewLinks.firstOpenedAt}, ${time}), ${time})`,
      lastOpenedAt: sql`greatest(coalesce(${previewLinks.lastOpenedAt}, ${time}), ${time})`,
      openedCount: sql`${previewLinks.openedCount} + 1`,
    })
    .where(and(eq(previewLinks.organizationId, organizationId), eq(previewLinks.id, linkId)));
}
