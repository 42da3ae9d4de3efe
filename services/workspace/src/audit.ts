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
  await auditAll(db, [{ organizationId, action, subjectId, actor }]);
}

/** Records several actions in one statement (the scheduler's batch). */
export async function auditAll(
  db: Queryable,
  entries: { organizationId: string; action: string; subjectId: string | null; actor: string }[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.insert(auditEvents).values(entries.map((entry) => ({ id: newId(), ...entry })));
}

/** The actor of a change a person made in the web app. */
export function personActor(personId: string): string {
  return `person:${personId}`;
}
