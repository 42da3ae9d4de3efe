import type { Db } from "@newsroom/shared/db/index";
import { statusComponents } from "@newsroom/shared/db/schema";
import { type FieldError, notFound, validationFailed } from "@newsroom/shared/errors";
import { sql } from "drizzle-orm";
import { auditStatus } from "./incidents.ts";
import { COMPONENT_IDS, isComponentState } from "./model.ts";

const NOTE_MAX = 500;

/**
 * Sets the state staff want a component shown in, with a note, until cleared (`state` empty or
 * null clears it: the probes' state shows again). Audited.
 */
export async function setComponentOverride(
  db: Db,
  houseOrg: string,
  componentId: string,
  input: { state?: string | null; note?: string | null },
  actor: string,
  now = new Date(),
): Promise<void> {
  if (!COMPONENT_IDS.includes(componentId)) throw notFound("No such component.");
  const state = input.state?.trim() || null;
  const note = input.note?.trim() || null;
  const errors: FieldError[] = [];
  if (state !== null && !isComponentState(state)) {
    errors.push({ field: "state", reason: "invalid", message: "Choose a state." });
  }
  if (note && note.length > NOTE_MAX) {
    errors.push({ field: "note", reason: "too_long", message: `At most ${NOTE_MAX} characters.` });
  }
  if (errors.length > 0) throw validationFailed(errors);
  await db.transaction(async (tx) => {
    const values = {
      overrideState: state,
      overrideNote: state ? note : null,
      overrideAt: state ? now : null,
      updatedAt: now,
    };
    await tx
      .insert(statusComponents)
      .values({ id: componentId, ...values, createdAt: now })
      .onConflictDoUpdate({
        target: statusComponents.id,
        set: { ...values, updatedAt: sql`${now.toISOString()}::timestamptz` },
      });
    await auditStatus(
      tx,
      houseOrg,
      state ? "status.component_overridden" : "status.component_override_cleared",
      null,
      actor,
    );
  });
}
