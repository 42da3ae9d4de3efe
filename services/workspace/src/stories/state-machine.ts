import type { StoryStatus } from "@newsroom/shared/db/schema";
import type { WebhookEventType } from "@newsroom/shared/events";

/**
 * The story state machine. The invariant: nothing reaches `published` unless a person approved
 * its current version. A new version resets an approved story to `draft`.
 */
export const ACTIONS = [
  "submit",
  "approve",
  "reject",
  "schedule",
  "unschedule",
  "publish",
  "unpublish",
  "archive",
] as const;
export type StoryAction = (typeof ACTIONS)[number];

export interface TransitionRule {
  from: readonly StoryStatus[];
  to: StoryStatus;
  /** The event written to the outbox in the same transaction. */
  event: WebhookEventType | null;
  /** Publishing needs the approved version to be the current one. */
  needsApprovedVersion?: boolean;
  /** The approval decision this transition records. */
  decision?: "approved" | "rejected";
}

export const TRANSITIONS: Record<StoryAction, TransitionRule> = {
  submit: {
    from: ["draft", "ai_generated", "rejected"],
    to: "review_required",
    event: "story.submitted",
  },
  approve: {
    from: ["review_required"],
    to: "approved",
    event: "story.approved",
    decision: "approved",
  },
  reject: {
    from: ["review_required"],
    to: "rejected",
    event: "story.rejected",
    decision: "rejected",
  },
  // With a `publish_at`; the scheduler publishes it then (scheduler.ts).
  schedule: {
    from: ["approved", "failed"],
    to: "scheduled",
    event: null,
    needsApprovedVersion: true,
  },
  unschedule: { from: ["scheduled"], to: "approved", event: null },
  publish: {
    from: ["approved", "scheduled", "unpublished", "failed"],
    to: "published",
    event: "story.published",
    needsApprovedVersion: true,
  },
  unpublish: { from: ["published"], to: "unpublished", event: "story.unpublished" },
  archive: {
    from: ["draft", "ai_generated", "rejected", "approved", "scheduled", "unpublished", "failed"],
    to: "archived",
    event: null,
  },
};

/** Statuses in which a new version may be written, and the status it leaves the story in. */
export const NEW_VERSION_ALLOWED: readonly StoryStatus[] = [
  "draft",
  "ai_generated",
  "rejected",
  "approved",
  "scheduled",
  "unpublished",
  "failed",
];

export function statusAfterNewVersion(status: StoryStatus): StoryStatus {
  return status === "ai_generated" ? "ai_generated" : status === "rejected" ? "rejected" : "draft";
}

/**
 * Statuses a story reaches only through an approval: each has an approval decision of its
 * current version (the seeded demo obeys this too).
 */
export const STATUSES_AFTER_APPROVAL: readonly StoryStatus[] = [
  "approved",
  "scheduled",
  "publishing",
  "published",
  "unpublished",
  "failed",
];

/** Roles that may decide approvals: people in the workspace, never a key. */
export const APPROVER_ROLES = ["owner", "admin", "approver"] as const;

export type TransitionCheck =
  | { ok: true; rule: TransitionRule }
  | { ok: false; reason: string; field?: string };

export function checkTransition(
  story: { status: StoryStatus; currentVersion: number | null; approvedVersion: number | null },
  action: StoryAction,
  input: { note?: string | null; actorRole: string },
): TransitionCheck {
  const rule = TRANSITIONS[action];
  if (!rule.from.includes(story.status)) {
    return { ok: false, reason: `A story in ${story.status} cannot ${action}.` };
  }
  if (action === "submit" && story.currentVersion === null) {
    return { ok: false, reason: "A story needs a version before it is submitted." };
  }
  if (rule.decision && !(APPROVER_ROLES as readonly string[]).includes(input.actorRole)) {
    return {
      ok: false,
      reason: `Only ${APPROVER_ROLES.join(", ")} may decide approvals.`,
      field: "actor_role",
    };
  }
  if (action === "reject" && !input.note?.trim()) {
    return { ok: false, reason: "A rejection needs a note.", field: "note" };
  }
  if (
    rule.needsApprovedVersion &&
    (story.approvedVersion === null || story.approvedVersion !== story.currentVersion)
  ) {
    return { ok: false, reason: "The current version has not been approved." };
  }
  return { ok: true, rule };
}
