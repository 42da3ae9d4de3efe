import { MEMBER_ROLES, type MemberRole } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { checkLimit } from "@newsroom/shared/rate-limit";
import { Elysia, t } from "elysia";
import { personActor } from "../../audit.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import { addedToOrganizationEmail } from "../../identity/members/added-email.ts";
import { MemberIn } from "../../identity/members/model.ts";
import { can } from "../../identity/members/permissions.ts";
import { addMember, removeMember } from "../../identity/members/service.ts";
import {
  findMembership,
  findPersonByEmail,
  findPersonById,
  membersOf,
} from "../../identity/members/store.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { decodeForm } from "../form-decode.ts";
import { isFreshSignIn, requireFreshSignIn } from "../fresh-sign-in.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { type MemberListItem, type MembersPageState, membersPage } from "../pages/members.ts";

/** A member's new role: the role of the internal API's member. */
const RoleIn = t.Pick(MemberIn, ["role"]);
const isRole = (value: string): value is MemberRole => MEMBER_ROLES.includes(value as MemberRole);
const isLastOwner = (error: unknown) =>
  error instanceof ApiError &&
  error.code === "conflict" &&
  error.fields?.some((field) => field.reason === "last_owner");
const LAST_OWNER = "This is the last owner: make someone else an owner first.";
/**
 * Admins and owners create keys and endpoints, which need a sign-in from the last 12 hours:
 * giving either role (or raising an admin to owner) needs one too, or a stale session could make
 * someone else an admin who then creates the keys it may not.
 */
const KEY_HOLDING_ROLES: readonly MemberRole[] = ["owner", "admin"];
const grantsKeyHoldingRole = (from: MemberRole | null, to: MemberRole) =>
  KEY_HOLDING_ROLES.includes(to) && from !== to && from !== "owner";
/** Invitations send email to any address: at most this many an hour per organization. */
export const INVITATIONS_PER_HOUR = 50;

/** The members of an organization: invite by email, change a role, remove. Every change is audited. */
export function membersWebRoutes(deps: WebDeps, kit: WebKit) {
  const pathOf = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/members`;

  async function gate(request: Request, org: string) {
    const who = await kit.signedIn(request);
    const access = await kit.permit(who, org, "members.manage");
    return { who, access };
  }

  /** Making, unmaking or touching an owner needs `members.manage_owners` (403 otherwise). */
  const guardOwners = (who: SignedInVisitor, access: OrgAccess) =>
    kit.permit(who, access.organization.id, "members.manage_owners");

  async function page(
    who: SignedInVisitor,
    access: OrgAccess,
    state: MembersPageState,
    status = 200,
  ) {
    const members = await membersOf(deps.db, access.organization.id);
    const needsCode = !isFreshSignIn(who.signedIn.session, deps.now());
    return kit.page(who, membersPage(who, access, members, { ...state, needsCode }), status);
  }

  /** The member named in the path; anyone else (another organization's person) is a 404. */
  async function memberOf(access: OrgAccess, personId: string): Promise<MemberListItem> {
    const person = isUuid(personId) ? await findPersonById(deps.db, personId) : null;
    const membership = person
      ? await findMembership(deps.db, access.organization.id, person.id)
      : null;
    if (!person || !membership) throw new ApiError("not_found", "No such member.");
    return { person, membership };
  }

  /** Tells the person they were added; the membership stands whether or not the email leaves. */
  async function tellAdded(
    who: SignedInVisitor,
    access: OrgAccess,
    email: string,
    role: MemberRole,
  ) {
    if (!deps.mailer) {
      log.warn("member added without an email: email is not configured (FORMS_FROM_EMAIL)");
      return false;
    }
    const message = addedToOrganizationEmail({
      to: email,
      organization: access.organization.name,
      role,
      addedBy: who.signedIn.person.email,
      appUrl: deps.appUrl,
    });
    try {
      await deps.mailer.send(message);
      return true;
    } catch (error) {
      log.error("member added, email not sent", {
        error: error instanceof Error ? error.name : String(error),
      });
      return false;
    }
  }

  const post = { parse: "none" } as const;
  return new Elysia()
    .get("/app/orgs/:org/members", async ({ request, params }) => {
      const { who, access } = await gate(request, params.org);
      return page(who, access, {});
    })
    .post(
      "/app/orgs/:org/members",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const decoded = decodeForm(form, MemberIn, {
          wording: {
            email: "Enter an email address such as name@example.com.",
            role: "Choose a role.",
          },
          prepare: (given) => {
            given.email = String(given.email ?? "").toLowerCase();
          },
        });
        const email = String(decoded.given.email);
        const role = String(decoded.given.role ?? "");
        const errors: Record<string, string> = decoded.ok ? {} : decoded.errors;
        if (role === "owner") await guardOwners(who, access);
        if (isRole(role) && grantsKeyHoldingRole(null, role)) {
          requireFreshSignIn(who, deps.now(), pathOf(access));
        }
        const known = errors.email ? null : await findPersonByEmail(deps.db, email);
        let status = 422;
        if (known && (await findMembership(deps.db, access.organization.id, known.id))) {
          errors.email = "This person is a member already: change their role in the list.";
          status = 409;
        }
        if (Object.keys(errors).length > 0 || !isRole(role)) {
          return page(who, access, { invite: { email, role, errors } }, status);
        }
        const limit = await checkLimit(
          deps.rateLimits,
          `workspace:invitations:${access.organization.id}`,
          INVITATIONS_PER_HOUR,
          3600,
        );
        if (!limit.allowed) {
          errors.email = `At most ${INVITATIONS_PER_HOUR} invitations an hour: try again later.`;
          return page(who, access, { invite: { email, role, errors } }, 429);
        }
        const actor = personActor(who.signedIn.person.id);
        await addMember(deps.db, access.organization.id, { email, role }, actor);
        const told = await tellAdded(who, access, email, role);
        return kit.redirect(withDone(pathOf(access), told ? "invited" : "invited-no-email"));
      },
      post,
    )
    .post(
      "/app/orgs/:org/members/:person/role",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const { person, membership } = await memberOf(access, params.person);
        const decoded = decodeForm(form, RoleIn, { wording: { role: "Choose a role." } });
        if (!decoded.ok) {
          const memberError = { personId: person.id, message: "Choose a role." };
          return page(who, access, { memberError }, 422);
        }
        const { role } = decoded.value;
        if (membership.role === "owner" || role === "owner") await guardOwners(who, access);
        if (grantsKeyHoldingRole(membership.role, role)) {
          requireFreshSignIn(who, deps.now(), pathOf(access));
        }
        if (role !== membership.role) {
          try {
            const actor = personActor(who.signedIn.person.id);
            await addMember(deps.db, access.organization.id, { email: person.email, role }, actor);
          } catch (error) {
            if (!isLastOwner(error)) throw error;
            const memberError = { personId: person.id, message: LAST_OWNER };
            return page(who, access, { memberError }, 409);
          }
        }
        // Having given up the right to manage members, the person lands on the overview.
        const self = person.id === who.signedIn.person.id && !access.staff;
        if (self && !can(role, "members.manage")) {
          return kit.redirect(`/app/orgs/${encodeURIComponent(access.organization.slug)}`);
        }
        return kit.redirect(withDone(pathOf(access), "role-changed"));
      },
      post,
    )
    .post(
      "/app/orgs/:org/members/:person/remove",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const { person, membership } = await memberOf(access, params.person);
        if (membership.role === "owner") await guardOwners(who, access);
        const refuse = () =>
          page(who, access, { memberError: { personId: person.id, message: LAST_OWNER } }, 409);
        if (form.text("confirm") !== "yes") {
          const members = await membersOf(deps.db, access.organization.id);
          const owners = members.filter((one) => one.membership.role === "owner").length;
          if (membership.role === "owner" && owners === 1) return refuse();
          const confirmation = confirmPage(who, {
            title: "Remove a member",
            question: `${person.email} (${membership.role}) loses access to ${access.organization.name} at once.`,
            action: `${pathOf(access)}/${person.id}/remove`,
            button: `Remove ${person.email}`,
            back: pathOf(access),
          });
          return kit.page(who, confirmation);
        }
        try {
          const actor = personActor(who.signedIn.person.id);
          await removeMember(deps.db, access.organization.id, person.email, actor);
        } catch (error) {
          if (!isLastOwner(error)) throw error;
          return refuse();
        }
        if (person.id === who.signedIn.person.id && !access.staff) return kit.redirect("/app/");
        return kit.redirect(withDone(pathOf(access), "removed"));
      },
      post,
    );
}
