import type { Queryable } from "@newsroom/shared/db/index";
import { auditEvents } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";

/** Records an owner action (key and endpoint creation, revocation, disabling). */
export async function audit(
  db: Queryable,
  organizationId: string,
  action: string,
  subjectId: string | null,
  actor = "admin",
): Promise<void> {
  await db.insert(auditEvents).values({ id: newId(), organizationId, action, subjectId, actor });
}

/** The actor of a change a person made in the web app. */
export function personActor(personId: string): string {
  return `person:${personId}`;
}
