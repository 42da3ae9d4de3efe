import type { Queryable } from "@newsroom/shared/db/index";
import type { MemberRole } from "@newsroom/shared/db/schema";
import { can } from "../identity/members/permissions.ts";
import { findMembership, membershipsOfPerson } from "../identity/members/store.ts";

/**
 * Whether a person may decide approvals in an organization now: a member whose role has
 * `story.decide`. Read on every use of a token, never remembered in it.
 */
export async function approverRole(
  db: Queryable,
  organizationId: string,
  personId: string,
): Promise<MemberRole | null> {
  const membership = await findMembership(db, organizationId, personId);
  return membership && can(membership.role, "story.decide") ? membership.role : null;
}

/** The organizations where the person may decide approvals: those an application may be allowed. */
export async function approverOrganizations(db: Queryable, personId: string) {
  const memberships = await membershipsOfPerson(db, personId);
  return memberships.filter((membership) => can(membership.role, "story.decide"));
}
