import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { previewPlaces } from "../../sites/public-pages.ts";
import { findStoryInOrganization } from "../../stories/lookup.ts";
import {
  findStory,
  organizationImages,
  organizationOfStory,
  storyVersionsOf,
} from "../../stories/queries.ts";
import { addStoryVersion, createStory } from "../../stories/service.ts";
import { NEW_VERSION_ALLOWED } from "../../stories/state-machine.ts";
import type { WebDeps } from "../deps.ts";
import { diffLines } from "../diff.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import {
  EDITOR_DONE,
  type EditorData,
  type EditorState,
  storyEditorPage,
} from "../pages/story-editor.ts";
import { allowOwnScripts } from "../secret-once.ts";
import {
  applyStep,
  createInputOfDraft,
  draftOfForm,
  draftOfStory,
  emptyBlock,
  type StoryDraft,
  stepOf,
  versionInputOfDraft,
} from "../story-draft.ts";
import { editorScriptRoutes } from "../story-editor-script.ts";
import { versionLines } from "../version-text.ts";

/**
 * The editors' desk: the new story and edit pages (`story.edit`). Every block step is a form
 * post that re-renders the form; Save writes through the story service the internal API uses.
 */
export function storyEditorWebRoutes(deps: WebDeps, kit: WebKit) {
  function page(who: SignedInVisitor, data: EditorData, state: EditorState, status = 200) {
    return allowOwnScripts(kit.page(who, storyEditorPage(who, data, state), status));
  }

  /** The story, for a person who may edit it; another organization's is a 404. */
  async function editable(who: SignedInVisitor, storyId: string) {
    const orgId = await organizationOfStory(deps.db, storyId);
    if (!orgId) throw new ApiError("not_found", "No such story.");
    const access = await kit.permit(who, orgId, "story.edit");
    const story = await findStory(deps.db, orgId, storyId);
    if (!story) throw new ApiError("not_found", "No such story.");
    return { access, story };
  }

  async function editData(
    access: EditorData["access"],
    story: NonNullable<Awaited<ReturnType<typeof findStory>>>,
    draft: StoryDraft,
  ): Promise<EditorData> {
    return {
      access,
      story: { id: story.id, status: story.status, currentVersion: story.currentVersion },
      draft,
      assets: await organizationImages(deps.db, access.organization.id),
      previewPlaces: await previewPlaces(deps.db, deps.houseOrg, access.organization),
    };
  }

  async function saved(storyId: string, orgId: string) {
    const story = await findStory(deps.db, orgId, storyId);
    const versions = await storyVersionsOf(deps.db, orgId, storyId);
    const topics = (await findStoryInOrganization(deps.db, orgId, storyId)).topics;
    return {
      story: story!,
      versions,
      draft: draftOfStory(
        story!,
        versions.find((v) => v.version === story!.currentVersion),
        topics,
      ),
    };
  }

  const doneOf = (query: Record<string, unknown>) =>
    typeof query.done === "string" && query.done in EDITOR_DONE ? query.done : undefined;

  return new Elysia()
    .use(editorScriptRoutes())
    .get("/app/orgs/:org/stories/new", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "story.edit");
      const draft: StoryDraft = {
        ...draftOfStory(
          {
            type: "press_release",
            slug: "",
            featured: false,
            externalUrl: null,
            currentVersion: null,
          },
          undefined,
          [],
        ),
        blocks: [emptyBlock("paragraph")],
      };
      const assets = await organizationImages(deps.db, access.organization.id);
      return page(who, { access, draft, assets }, {});
    })
    .post(
      "/app/orgs/:org/stories/new",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await kit.permit(who, params.org, "story.edit");
        const assets = await organizationImages(deps.db, access.organization.id);
        const posted = draftOfForm(form);
        const step = stepOf(form.text("op", 40), form.text("add_type", 20));
        const draft = { ...posted, blocks: applyStep(posted.blocks, step) };
        if (step.kind !== "save") {
          const askRemove = step.kind === "ask-remove" ? step.index : undefined;
          return page(who, { access, draft, assets }, { askRemove });
        }
        const decided = createInputOfDraft(form, draft);
        if (!decided.ok) {
          return page(who, { access, draft, assets }, { errors: decided.errors }, 422);
        }
        try {
          const story = await createStory(deps.db, access.organization.id, decided.input);
          return kit.redirect(`/app/stories/${story.id}/edit?done=created`);
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== "conflict") throw error;
          const errors = { slug: "Another story of the organization has this address: change it." };
          const shown = { ...draft, slug: decided.input.slug };
          return page(who, { access, draft: shown, assets }, { errors }, 409);
        }
      },
      { parse: "none" },
    )
    .get("/app/stories/:id/edit", async ({ request, params, query }) => {
      const who = await kit.signedIn(request);
      const { access, story } = await editable(who, params.id);
      const { draft } = await saved(story.id, access.organization.id);
      const problem = NEW_VERSION_ALLOWED.includes(story.status)
        ? undefined
        : `A story in ${story.status} cannot take a new version: saving is refused until it leaves ${story.status}.`;
      return page(who, await editData(access, story, draft), { problem, done: doneOf(query) });
    })
    .post(
      "/app/stories/:id/edit",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { access, story } = await editable(who, params.id);
        const posted = draftOfForm(form);
        // The type and address are the story's own: the edit page does not change them.
        const step = stepOf(form.text("op", 40), form.text("add_type", 20));
        const draft: StoryDraft = {
          ...posted,
          type: story.type,
          slug: story.slug,
          blocks: applyStep(posted.blocks, step),
        };
        if (step.kind !== "save") {
          const askRemove = step.kind === "ask-remove" ? step.index : undefined;
          return page(who, await editData(access, story, draft), { askRemove });
        }
        const decided = versionInputOfDraft(form, draft);
        if (!decided.ok) {
          return page(who, await editData(access, story, draft), { errors: decided.errors }, 422);
        }
        try {
          await addStoryVersion(deps.db, access.organization.id, story.id, decided.input);
          return kit.redirect(`/app/stories/${story.id}/edit?done=saved`);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          const now = await saved(story.id, access.organization.id);
          if (error.code === "conflict") {
            const base = now.versions.find((v) => v.version === draft.baseVersion);
            const theirs = now.versions.find((v) => v.version === now.story.currentVersion)!;
            const lines = diffLines(base ? versionLines(base) : [], versionLines(theirs));
            // Saving again from here is a deliberate choice over their version, never silent.
            const rebased = { ...draft, baseVersion: now.story.currentVersion };
            const data = await editData(access, now.story, rebased);
            return page(who, data, { conflict: { theirs: theirs.version, lines } }, 409);
          }
          if (error.code === "invalid_transition") {
            const data = await editData(access, now.story, draft);
            return page(who, data, { problem: `Nothing was saved: ${error.message}` }, 409);
          }
          throw error;
        }
      },
      { parse: "none" },
    );
}
