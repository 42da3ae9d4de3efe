import type { Queryable } from "@newsroom/shared/db/index";
import { workspaceMemberships, workspacePeople } from "@newsroom/shared/db/schema";
import { asc, eq } from "drizzle-orm";
import { memberOut } from "./model.ts";

/** The organization's members as Member records, by address (the internal API's list). */
export async function memberRecords(db: Queryable, organizationId: string) {
  const rows = await db
    .select({ person: workspacePeople, membership: workspaceMemberships })
    .from(workspaceMemberships)
    .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
    .where(eq(workspaceMemberships.organizationId, organizationId))
    .orderBy(asc(workspacePeople.email));
  return rows.map((row) => memberOut(row.person, row.membership));
}
