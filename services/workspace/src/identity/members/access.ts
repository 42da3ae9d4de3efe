import type { Queryable } from "@newsroom/shared/db/index";
import type { MemberRole } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { findOrganization, type OrganizationRow } from "../../resolve.ts";
import { can, type PermissionAction } from "./permissions.ts";
import { findMembership, type PersonRow } from "./store.ts";

/** What a person may be in one organization: their role there, or their house role as staff. */
export interface OrgAccess {
  organization: OrganizationRow;
  role: MemberRole;
  /** Acting as staff (an owner or admin of HOUSE_ORG), not as a member. */
  staff: boolean;
}

const STAFF_ROLES: readonly MemberRole[] = ["owner", "admin"];

/** Where people's rights are read: the database and the house organization's slug. */
export interface AccessContext {
  db: Queryable;
  houseOrg: string;
}

/** The person's house role when they are staff, else null. */
export async function staffRole(
  context: AccessContext,
  person: PersonRow,
): Promise<MemberRole | null> {
  const house = await findOrganization(context.db, context.houseOrg).catch(() => null);
  if (!house) return null;
  const membership = await findMembership(context.db, house.id, person.id);
  return membership && STAFF_ROLES.includes(membership.role) ? membership.role : null;
}

/** The person's access to an organization, or null when they have none (or it does not exist). */
export async function accessTo(
  context: AccessContext,
  person: PersonRow,
  orgIdOrSlug: string,
): Promise<OrgAccess | null> {
  const organization = await findOrganization(context.db, orgIdOrSlug).catch(() => null);
  if (!organization) return null;
  const membership = await findMembership(context.db, organization.id, person.id);
  const house = await staffRole(context, person);
  if (house && membership?.role !== "owner") {
    return { organization, role: house, staff: true };
  }
  if (!membership) return null;
  return { organization, role: membership.role, staff: false };
}

/**
 * The one gate of the workspace web app. Without access the organization answers like a
 * missing one (404: its existence never leaks); with a role that lacks the action, 403.
 * `beforeRole` checks the access first (the web app: which organizations the session reaches).
 */
export async function requirePermission(
  context: AccessContext,
  person: PersonRow,
  orgIdOrSlug: string,
  action: PermissionAction,
  beforeRole?: (access: OrgAccess) => void,
): Promise<OrgAccess> {
  const access = await accessTo(context, person, orgIdOrSlug);
  if (!access) throw new ApiError("not_found", "No such organization.");
  beforeRole?.(access);
  if (!can(access.role, action)) {
    throw new ApiError("forbidden", "Your role in this organization does not allow this.");
  }
  return access;
}
