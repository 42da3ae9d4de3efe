import type { Db } from "@newsroom/shared/db/index";
import type { MemberRole } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { audit } from "../../audit.ts";
import { findOrganization } from "../../resolve.ts";
import {
  deleteMembership,
  ensurePerson,
  findMembership,
  findPersonByEmail,
  lockOwners,
  type MembershipRow,
  type PersonRow,
  upsertMembership,
} from "./store.ts";

const lastOwner = () =>
  new ApiError("conflict", "An organization keeps at least one owner.", {
    fields: [{ field: "role", reason: "last_owner" }],
  });

/**
 * Gives a person (created when new) a role in an organization, or changes it. The last owner
 * keeps the owner role. `actor` is written to the audit log.
 */
export async function addMember(
  db: Db,
  orgIdOrSlug: string,
  input: { email: string; role: MemberRole },
  actor: string,
): Promise<{ person: PersonRow; membership: MembershipRow; created: boolean }> {
  const org = await findOrganization(db, orgIdOrSlug);
  return db.transaction(async (tx) => {
    const person = await ensurePerson(tx, input.email);
    const owners = await lockOwners(tx, org.id);
    const before = await findMembership(tx, org.id, person.id);
    if (before?.role === "owner" && input.role !== "owner" && owners.length === 1) {
      throw lastOwner();
    }
    const membership = await upsertMembership(tx, org.id, person.id, input.role);
    if (!before) await audit(tx, org.id, `member.added:${input.role}`, person.id, actor);
    else if (before.role !== input.role) {
      await audit(tx, org.id, `member.role_changed:${before.role}>${input.role}`, person.id, actor);
    }
    return { person, membership, created: !before };
  });
}

/** Removes a person from an organization; 404 when not a member, 409 for the last owner. */
export async function removeMember(
  db: Db,
  orgIdOrSlug: string,
  email: string,
  actor: string,
): Promise<void> {
  const org = await findOrganization(db, orgIdOrSlug);
  await db.transaction(async (tx) => {
    const person = await findPersonByEmail(tx, email);
    const owners = await lockOwners(tx, org.id);
    const membership = person ? await findMembership(tx, org.id, person.id) : null;
    if (!person || !membership) throw new ApiError("not_found", "No such member.");
    if (membership.role === "owner" && owners.length === 1) throw lastOwner();
    await deleteMembership(tx, org.id, person.id);
    await audit(tx, org.id, `member.removed:${membership.role}`, person.id, actor);
  });
}
