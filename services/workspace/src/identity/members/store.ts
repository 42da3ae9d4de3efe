import type { Queryable } from "@newsroom/shared/db/index";
import {
  type MemberRole,
  organizations,
  workspaceMemberships,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, asc, eq } from "drizzle-orm";

export type PersonRow = typeof workspacePeople.$inferSelect;
export type MembershipRow = typeof workspaceMemberships.$inferSelect;

/** Addresses are compared lower-cased and without surrounding spaces. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findPersonByEmail(db: Queryable, email: string): Promise<PersonRow | null> {
  const [row] = await db
    .select()
    .from(workspacePeople)
    .where(eq(workspacePeople.email, normalizeEmail(email)));
  return row ?? null;
}

export async function findPersonById(db: Queryable, id: string): Promise<PersonRow | null> {
  const [row] = await db.select().from(workspacePeople).where(eq(workspacePeople.id, id));
  return row ?? null;
}

/** The person with this address, created when new. */
export async function ensurePerson(db: Queryable, email: string): Promise<PersonRow> {
  const normalized = normalizeEmail(email);
  await db
    .insert(workspacePeople)
    .values({ id: newId(), email: normalized })
    .onConflictDoNothing({ target: workspacePeople.email });
  return (await findPersonByEmail(db, normalized))!;
}

export async function findMembership(
  db: Queryable,
  organizationId: string,
  personId: string,
): Promise<MembershipRow | null> {
  const [row] = await db
    .select()
    .from(workspaceMemberships)
    .where(
      and(
        eq(workspaceMemberships.organizationId, organizationId),
        eq(workspaceMemberships.personId, personId),
      ),
    );
  return row ?? null;
}

/** The owners of an organization, locked until the transaction ends (last-owner checks). */
export async function lockOwners(db: Queryable, organizationId: string): Promise<string[]> {
  const rows = await db
    .select({ personId: workspaceMemberships.personId })
    .from(workspaceMemberships)
    .where(
      and(
        eq(workspaceMemberships.organizationId, organizationId),
        eq(workspaceMemberships.role, "owner"),
      ),
    )
    .for("update");
  return rows.map((row) => row.personId);
}

export async function upsertMembership(
  db: Queryable,
  organizationId: string,
  personId: string,
  role: MemberRole,
): Promise<MembershipRow> {
  const [row] = await db
    .insert(workspaceMemberships)
    .values({ organizationId, personId, role })
    .onConflictDoUpdate({
      target: [workspaceMemberships.organizationId, workspaceMemberships.personId],
      set: { role, updatedAt: new Date() },
    })
    .returning();
  return row!;
}

export async function deleteMembership(
  db: Queryable,
  organizationId: string,
  personId: string,
): Promise<void> {
  await db
    .delete(workspaceMemberships)
    .where(
      and(
        eq(workspaceMemberships.organizationId, organizationId),
        eq(workspaceMemberships.personId, personId),
      ),
    );
}

/** Across organizations (labelled: the one person-first query): where a person is a member. */
export async function membershipsOfPerson(db: Queryable, personId: string) {
  return db
    .select({
      organizationId: organizations.id,
      slug: organizations.slug,
      name: organizations.name,
      role: workspaceMemberships.role,
    })
    .from(workspaceMemberships)
    .innerJoin(organizations, eq(organizations.id, workspaceMemberships.organizationId))
    .where(eq(workspaceMemberships.personId, personId))
    .orderBy(asc(organizations.name));
}

/** The organization's members with their person rows, by address. */
export async function membersOf(db: Queryable, organizationId: string) {
  return db
    .select({ person: workspacePeople, membership: workspaceMemberships })
    .from(workspaceMemberships)
    .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
    .where(eq(workspaceMemberships.organizationId, organizationId))
    .orderBy(asc(workspacePeople.email));
}
