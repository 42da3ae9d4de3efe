import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { announceDataChange } from "../../announce.ts";
import { audit } from "../../audit.ts";
import { requirePermission } from "../../people/access.ts";
import { can } from "../../people/permissions.ts";
import {
  findStory,
  organizationOfStory,
  storyDecisions,
  storyEvents,
  storyVersionsOf,
} from "../../stories/queries.ts";
import { transitionStory } from "../../stories/service.ts";
import type { WebDeps } from "../deps.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { type DecisionFormState, type StoryPageData, storyPage } from "../pages/story.ts";

/** A story's page and the approve and reject decisions made on it. */
export function storyRoutes(deps: WebDeps, kit: WebKit) {
  const context = { db: deps.db, houseOrg: deps.houseOrg };

  /** The story with what its page shows; another organization's story is a 404. */
  async function load(who: SignedInVisitor, storyId: string): Promise<StoryPageData> {
    const orgId = await organizationOfStory(deps.db, storyId);
    if (!orgId) throw new ApiError("not_found", "No such story.");
    const access = await requirePermission(context, who.signedIn.person, orgId, "view");
    const story = await findStory(deps.db, orgId, storyId);
    if (!story) throw new ApiError("not_found", "No such story.");
    const [versions, decisions, events] = await Promise.all([
      storyVersionsOf(deps.db, orgId, storyId),
      storyDecisions(deps.db, orgId, storyId),
      storyEvents(deps.db, orgId, storyId),
    ]);
    return {
      access,
      story,
      versions,
      decisions,
      events,
      mayDecide: can(access.role, "story.decide"),
    };
  }

  async function decide(request: Request, storyId: string, action: "approve" | "reject") {
    const who = await kit.signedIn(request);
    const form = await kit.form(request, who);
    const { access } = await load(who, storyId);
    await requirePermission(context, who.signedIn.person, access.organization.id, "story.decide");
    const note = form.text("note", 2000);
    const again = async (state: DecisionFormState, status: number) =>
      kit.page(who, storyPage(who, await load(who, storyId), state), status);
    if (action === "reject" && !note) {
      return again({ noteError: "Write a note: the author needs to know what to change." }, 422);
    }
    try {
      await transitionStory(
        deps.db,
        storyId,
        { action, note: note || null, actor_role: access.role },
        {
          afterStoryWrite: (tx) =>
            audit(
              tx,
              access.organization.id,
              `story.${action}`,
              storyId,
              `person:${who.signedIn.person.id}`,
            ),
          onEvent: deps.kickRelay,
          onChange: (orgId) => announceDataChange(deps.bus, orgId, "stories"),
        },
        { personId: who.signedIn.person.id },
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === "invalid_transition") {
        return again({ problem: `Nothing changed: ${error.message}`, note }, 409);
      }
      if (error.code === "validation_failed") return again({ noteError: error.message, note }, 422);
      throw error;
    }
    return kit.redirect(`/app/stories/${storyId}`);
  }

  return new Elysia()
    .get("/app/stories/:id", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      return kit.page(who, storyPage(who, await load(who, params.id)));
    })
    .post(
      "/app/stories/:id/approve",
      ({ request, params }) => decide(request, params.id, "approve"),
      {
        parse: "none",
      },
    )
    .post(
      "/app/stories/:id/reject",
      ({ request, params }) => decide(request, params.id, "reject"),
      {
        parse: "none",
      },
    );
}
