import type { Db } from "@newsroom/shared/db/index";
import { organizations, stories, storyVersions, workspacePeople } from "@newsroom/shared/db/schema";
import { html } from "@newsroom/shared/html";
import { log } from "@newsroom/shared/log";
import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import { and, eq } from "drizzle-orm";
import { ownerAndAdminAddresses } from "../webhook-endpoints/alert-recipients.ts";

interface FailedPublication {
  storyId: string;
  organizationId: string;
  reason: string;
}

/**
 * Emails the person who scheduled the story that the scheduler did not publish it (an operator's
 * schedule has no person: the organization's owners and admins then). Sent once, by the replica
 * whose transaction moved the story to `failed`; a failure to send is logged, never thrown.
 */
export async function notifyPublicationFailed(
  db: Db,
  deps: { mailer: Mailer | null; appUrl: string },
  failed: FailedPublication,
): Promise<void> {
  try {
    if (!deps.mailer) {
      log.warn("scheduled story failed; email not configured, nobody was told", {
        story_id: failed.storyId,
      });
      return;
    }
    const [story] = await db
      .select({
        title: storyVersions.title,
        publishAt: stories.publishAt,
        scheduledBy: workspacePeople.email,
        organization: organizations.name,
      })
      .from(stories)
      .innerJoin(organizations, eq(organizations.id, stories.organizationId))
      .leftJoin(
        storyVersions,
        and(
          eq(storyVersions.storyId, stories.id),
          eq(storyVersions.version, stories.currentVersion),
        ),
      )
      .leftJoin(workspacePeople, eq(workspacePeople.id, stories.scheduledBy))
      .where(
        and(eq(stories.organizationId, failed.organizationId), eq(stories.id, failed.storyId)),
      );
    if (!story) return;
    const to = story.scheduledBy
      ? [story.scheduledBy]
      : await ownerAndAdminAddresses(db, failed.organizationId);
    if (to.length === 0) return;
    await deps.mailer.send(
      publicationFailedEmail(
        to,
        { ...story, ...failed },
        `${deps.appUrl}/stories/${failed.storyId}`,
      ),
    );
  } catch (error) {
    log.error("the failed-publication email could not be sent", {
      story_id: failed.storyId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export function publicationFailedEmail(
  to: string[],
  story: { title: string | null; organization: string; publishAt: Date | null; reason: string },
  page: string,
): MailMessage {
  const title = story.title ?? "Untitled story";
  const due = story.publishAt
    ? `${story.publishAt.toISOString().slice(0, 16).replace("T", " ")} UTC`
    : "";
  const text = `A scheduled story of ${story.organization} was not published.

Story: ${title}
Scheduled for: ${due}
Why: ${story.reason}

It is now in "failed". Open it to publish it now or schedule it again: ${page}
`;
  const body = html`<p>A scheduled story of ${story.organization} was not published.</p>
<p>Story: ${title}<br>Scheduled for: ${due}<br>Why: ${story.reason}</p>
<p>It is now in "failed". <a href="${page}">Open it</a> to publish it now or schedule it again.</p>
`;
  return { to, subject: `Scheduled story not published: ${title}`, text, html: body.value };
}
