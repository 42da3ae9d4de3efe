import { bodyBeforePublication } from "@newsroom/shared/asset-urls";
import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { audit } from "../../audit.ts";
import { storyCmsWrites } from "../../cms-connections/commands.ts";
import { can } from "../../identity/members/permissions.ts";
import {
  createPreviewLink,
  creatorsOf,
  expiryOf,
  labelOf,
  listPreviewLinks,
  PREVIEWABLE_STATUSES,
} from "../../preview-links/service.ts";
import { previewPlaces, storyPublicPages } from "../../sites/public-pages.ts";
import {
  findStory,
  organizationOfStory,
  storyDecisions,
  storyEvents,
  storyVersionsOf,
} from "../../stories/queries.ts";
import { transitionStory } from "../../stories/service.ts";
import type { StoryAction } from "../../stories/state-machine.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { expiryOfDay, type PreviewLinkFormState } from "../pages/preview-links.ts";
import { type DecisionFormState, type StoryPageData, storyPage } from "../pages/story.ts";
import { allowOwnScripts } from "../secret-once.ts";
import { isTimeZone, zonedDateTime } from "../time-zones.ts";

/** A story's page, the approve and reject decisions made on it, publishing and unpublishing. */
export function storiesWebRoutes(deps: WebDeps, kit: WebKit) {
  const addresses = { houseOrg: deps.houseOrg, newsroomHost: deps.newsroomHost };

  /** The story with what its page shows; another organization's story is a 404. */
  async function load(
    who: SignedInVisitor,
    storyId: string,
    request?: Request,
  ): Promise<StoryPageData> {
    const orgId = await organizationOfStory(deps.db, storyId);
    if (!orgId) throw new ApiError("not_found", "No such story.");
    const access = await kit.permit(who, orgId, "view");
    const story = await findStory(deps.db, orgId, storyId);
    if (!story) throw new ApiError("not_found", "No such story.");
    const [versions, decisions, events] = await Promise.all([
      storyVersionsOf(deps.db, orgId, storyId),
      storyDecisions(deps.db, orgId, storyId),
      storyEvents(deps.db, orgId, storyId),
    ]);
    const current = versions.find((v) => v.version === story.currentVersion);
    const reading = current ? await bodyBeforePublication(deps.db, orgId, current.body) : [];
    const publicPages =
      story.status === "published"
        ? await storyPublicPages(deps.db, addresses, access.organization, story.slug)
        : [];
    const links = can(access.role, "story.decide")
      ? await listPreviewLinks(deps.db, orgId, storyId)
      : null;
    const creators = links ? await creatorsOf(deps.db, links) : new Map<string, string>();
    // Where the story stands in the organization's CMSs; the page shows without it when the
    // webhooks service does not answer.
    const cmsWrites = await storyCmsWrites(deps, orgId, storyId).catch(() => null);
    return {
      cmsWrites,
      access,
      story,
      versions,
      decisions,
      events,
      mayDecide: can(access.role, "story.decide"),
      mayPublish: can(access.role, "story.publish"),
      mayEdit: can(access.role, "story.edit"),
      reading,
      previewPlaces: await previewPlaces(deps.db, deps.houseOrg, access.organization),
      publicPages,
      previewLinks: links && {
        storyId,
        open: PREVIEWABLE_STATUSES.includes(story.status),
        links: links.map((link) => ({ ...link, creator: creators.get(link.id) ?? "operator" })),
        now: deps.now(),
      },
      timeZone: timeZoneOf(request),
    };
  }

  /** The story service's transition, audited with the person who made it. */
  function transition(
    who: SignedInVisitor,
    organizationId: string,
    role: string,
    storyId: string,
    action: StoryAction,
    note: string | null,
    publishAt?: string,
  ) {
    return transitionStory(
      deps.db,
      organizationId,
      storyId,
      { action, note, actor_role: role, publish_at: publishAt },
      {
        withStoryWrite: (tx) =>
          audit(tx, organizationId, `story.${action}`, storyId, `person:${who.signedIn.person.id}`),
        onEvent: deps.kickRelay,
        minLeadSeconds: deps.scheduleMinLeadSeconds,
      },
      { personId: who.signedIn.person.id },
    );
  }

  /** Publish, or unpublish once confirmed (a page asks first: it takes the story off the newsroom). */
  async function release(request: Request, storyId: string, action: "publish" | "unpublish") {
    const who = await kit.signedIn(request);
    const form = await kit.form(request, who);
    const { access } = await load(who, storyId);
    await kit.permit(who, access.organization.id, "story.publish");
    const base = `/app/stories/${storyId}`;
    if (action === "unpublish" && form.text("confirm") !== "yes") {
      const confirmation = confirmPage(who, {
        title: "Unpublish the story",
        question:
          "The story leaves the public newsroom and its feeds. It stays approved here and can be published again.",
        action: `${base}/unpublish`,
        button: "Unpublish",
        back: base,
      });
      return kit.page(who, confirmation);
    }
    try {
      await transition(who, access.organization.id, access.role, storyId, action, null);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "invalid_transition") throw error;
      const state = { problem: `Nothing changed: ${error.message}` };
      return kit.page(who, storyPage(who, await load(who, storyId), state), 409);
    }
    return kit.redirect(withDone(base, action === "publish" ? "published" : "unpublished"));
  }

  /** Schedule at a date, time and zone of the form (`story.publish`). */
  async function schedule(request: Request, storyId: string) {
    const who = await kit.signedIn(request);
    const form = await kit.form(request, who);
    const { access } = await load(who, storyId);
    await kit.permit(who, access.organization.id, "story.publish");
    const sent = {
      date: form.text("date", 20),
      time: form.text("time", 20),
      zone: isTimeZone(form.text("time_zone", 100)) ? form.text("time_zone", 100) : "UTC",
    };
    const again = async (state: DecisionFormState, status: number) =>
      kit.page(who, storyPage(who, await load(who, storyId), state), status);
    const publishAt = zonedDateTime(sent.date, sent.time, sent.zone);
    if (!publishAt) {
      return again({ schedule: { ...sent, error: "Choose a date and a time." } }, 422);
    }
    try {
      await transition(
        who,
        access.organization.id,
        access.role,
        storyId,
        "schedule",
        null,
        publishAt,
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === "invalid_transition") {
        return again({ problem: `Nothing changed: ${error.message}` }, 409);
      }
      if (error.code === "validation_failed") {
        return again({ schedule: { ...sent, error: error.message } }, 422);
      }
      throw error;
    }
    const shown = `/app/stories/${storyId}?tz=${encodeURIComponent(sent.zone)}`;
    return kit.redirect(withDone(shown, "scheduled"));
  }

  /** Unschedule once confirmed: the story goes back to approved. */
  async function unschedule(request: Request, storyId: string) {
    const who = await kit.signedIn(request);
    const form = await kit.form(request, who);
    const { access } = await load(who, storyId);
    await kit.permit(who, access.organization.id, "story.publish");
    const base = `/app/stories/${storyId}`;
    if (form.text("confirm") !== "yes") {
      const confirmation = confirmPage(who, {
        title: "Unschedule the story",
        question:
          "The story will not be published at its time. It stays approved and can be scheduled or published again.",
        action: `${base}/unschedule`,
        button: "Unschedule",
        back: base,
      });
      return kit.page(who, confirmation);
    }
    try {
      await transition(who, access.organization.id, access.role, storyId, "unschedule", null);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "invalid_transition") throw error;
      const state = { problem: `Nothing changed: ${error.message}` };
      return kit.page(who, storyPage(who, await load(who, storyId), state), 409);
    }
    return kit.redirect(withDone(base, "unscheduled"));
  }

  async function decide(request: Request, storyId: string, action: "approve" | "reject") {
    const who = await kit.signedIn(request);
    const form = await kit.form(request, who);
    const { access } = await load(who, storyId);
    await kit.permit(who, access.organization.id, "story.decide");
    const note = form.text("note", 2000);
    const again = async (state: DecisionFormState, status: number) =>
      kit.page(who, storyPage(who, await load(who, storyId), state), status);
    if (action === "reject" && !note) {
      return again({ noteError: "Write a note: the author needs to know what to change." }, 422);
    }
    try {
      await transition(who, access.organization.id, access.role, storyId, action, note || null);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === "invalid_transition") {
        return again({ problem: `Nothing changed: ${error.message}`, note }, 409);
      }
      if (error.code === "validation_failed") return again({ noteError: error.message, note }, 422);
      throw error;
    }
    return kit.redirect(
      withDone(`/app/stories/${storyId}`, action === "approve" ? "approved" : "rejected"),
    );
  }

  /**
   * A preview link for the story (`story.decide`, as approving): the address shown once, on the
   * page the 303 leads to; the form again with its errors beside their fields otherwise.
   */
  async function createLink(request: Request, storyId: string) {
    const who = await kit.signedIn(request);
    const form = await kit.form(request, who);
    const { access } = await load(who, storyId);
    await kit.permit(who, access.organization.id, "story.decide");
    const state: PreviewLinkFormState = {
      label: form.text("label", 1000),
      expiresOn: form.text("expires_on", 100),
      errors: {},
    };
    const again = async (status: number) =>
      kit.page(who, storyPage(who, await load(who, storyId), { previewLink: state }), status);
    // The day becomes the service's expiry; the service's own checks judge both fields, each
    // refusal shown beside its field.
    const expiresAt = expiryOfDay(state.expiresOn ?? "");
    const checks = {
      label: () => labelOf(state.label ?? ""),
      expires_on: () => {
        if (!expiresAt)
          throw new ApiError("validation_failed", "Choose a day, such as 2026-12-01.");
        expiryOf(expiresAt, deps.now());
      },
    };
    for (const [field, check] of Object.entries(checks)) {
      try {
        check();
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        state.errors![field as "label" | "expires_on"] = error.message;
      }
    }
    if (!expiresAt || Object.keys(state.errors!).length > 0) return again(422);
    try {
      const { row, url } = await createPreviewLink(
        deps.db,
        addresses,
        access.organization,
        storyId,
        { label: state.label ?? "", expires_at: expiresAt },
        `person:${who.signedIn.person.id}`,
        deps.now(),
      );
      const session = who.signedIn.session.id;
      const handed = kit.shownOnce.handOver(session, `preview-link:${row.id}`, url, deps.now());
      return kit.redirect(`/app/preview-links/${row.id}/created`, [handed]);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === "validation_failed") {
        const field = error.fields?.[0]?.field;
        if (field === "label") state.errors!.label = error.message;
        else state.errors!.expires_on = error.message;
        return again(422);
      }
      if (error.code === "invalid_transition" || error.code === "conflict") {
        state.problem = `Nothing was created: ${error.message}`;
        return again(409);
      }
      throw error;
    }
  }

  /** Submit the saved version for review (`story.edit`), from the edit or story page. */
  async function submit(request: Request, storyId: string) {
    const who = await kit.signedIn(request);
    await kit.form(request, who);
    const { access } = await load(who, storyId);
    await kit.permit(who, access.organization.id, "story.edit");
    try {
      await transition(who, access.organization.id, access.role, storyId, "submit", null);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "invalid_transition") throw error;
      const state = { problem: `Nothing changed: ${error.message}` };
      return kit.page(who, storyPage(who, await load(who, storyId), state), 409);
    }
    return kit.redirect(withDone(`/app/stories/${storyId}`, "submitted"));
  }

  return new Elysia()
    .get("/app/stories/:id", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      return allowOwnScripts(
        await kit.page(who, storyPage(who, await load(who, params.id, request))),
      );
    })
    .post("/app/stories/:id/schedule", ({ request, params }) => schedule(request, params.id), {
      parse: "none",
    })
    .post("/app/stories/:id/unschedule", ({ request, params }) => unschedule(request, params.id), {
      parse: "none",
    })
    .post("/app/stories/:id/submit", ({ request, params }) => submit(request, params.id), {
      parse: "none",
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
    )
    .post(
      "/app/stories/:id/publish",
      ({ request, params }) => release(request, params.id, "publish"),
      { parse: "none" },
    )
    .post(
      "/app/stories/:id/preview-links",
      ({ request, params }) => createLink(request, params.id),
      { parse: "none" },
    )
    .post(
      "/app/stories/:id/unpublish",
      ({ request, params }) => release(request, params.id, "unpublish"),
      { parse: "none" },
    );
}

/** The zone a story page shows times in: `?tz=` when it names one, else UTC. */
function timeZoneOf(request: Request | undefined): { zone: string; given: boolean } {
  const asked = request ? new URL(request.url).searchParams.get("tz") : null;
  return asked && isTimeZone(asked) ? { zone: asked, given: true } : { zone: "UTC", given: false };
}
