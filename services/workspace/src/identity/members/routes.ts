import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../../deps.ts";
import { listOf } from "../../list.ts";
import { findOrganization } from "../../resolve.ts";
import { memberRecords } from "./member-records.ts";
import { MemberIn, memberOut } from "./model.ts";
import { addMember, removeMember } from "./service.ts";

/** Members of an organization, for operators (the internal API, `npm run admin -- member-add`). */
export function membersRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/orgs/:org/members", async ({ params }) => {
      const org = await findOrganization(deps.db, params.org);
      return listOf(await memberRecords(deps.db, org.id));
    })
    .post(
      "/internal/v1/orgs/:org/members",
      async ({ params, body, set }) => {
        const { person, membership, created } = await addMember(deps.db, params.org, body, "admin");
        set.status = created ? 201 : 200;
        return memberOut(person, membership);
      },
      { body: MemberIn },
    )
    .delete("/internal/v1/orgs/:org/members/:email", async ({ params, set }) => {
      await removeMember(deps.db, params.org, params.email, "admin");
      set.status = 204;
      return null;
    });
}
