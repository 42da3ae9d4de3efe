import { MEMBER_ROLES } from "@newsroom/shared/db/schema";
import { iso } from "@newsroom/shared/records";
import { t } from "elysia";
import type { MembershipRow, PersonRow } from "./store.ts";

export const MemberRoleSchema = t.Union(MEMBER_ROLES.map((role) => t.Literal(role)));

/** An address as people type it; stored lower-cased. */
export const EmailAddress = t.String({
  minLength: 3,
  maxLength: 254,
  pattern: "^\\s*[^@\\s]+@[^@\\s]+\\.[^@\\s]+\\s*$",
});

export const MemberIn = t.Object({ email: EmailAddress, role: MemberRoleSchema });

export function memberOut(person: PersonRow, membership: MembershipRow) {
  return {
    object: "member" as const,
    organization_id: membership.organizationId,
    person_id: person.id,
    email: person.email,
    role: membership.role,
    created_at: iso(membership.createdAt),
    updated_at: iso(membership.updatedAt),
  };
}
