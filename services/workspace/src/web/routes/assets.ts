import { ApiError } from "@newsroom/shared/errors";
import { queryOf } from "@newsroom/shared/http/urls";
import { Elysia } from "elysia";
import { announceAssetCleared } from "../../announce.ts";
import {
  clearAsset,
  listAssets,
  organizationIdOfAsset,
  uploadAsset,
} from "../../assets/service.ts";
import { variantBytes } from "../../assets/store.ts";
import { decodeUpload } from "../../assets/upload-form.ts";
import { personActor } from "../../audit.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import { can } from "../../identity/members/permissions.ts";
import type { WebDeps } from "../deps.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { assetsPage, type UploadFormState } from "../pages/assets.ts";

/**
 * An organization's images: the list with thumbnails (members only, never cached), upload
 * (`story.edit`) and clearing for publication (`asset.clear`).
 */
export function assetsWebRoutes(deps: WebDeps, kit: WebKit) {
  const assetsPath = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/assets`;

  async function listPage(
    who: SignedInVisitor,
    access: OrgAccess,
    state: UploadFormState = {},
    done?: "uploaded" | "cleared",
  ) {
    return assetsPage(
      who,
      {
        access,
        assets: await listAssets(deps.db, access.organization.id),
        mayUpload: can(access.role, "story.edit"),
        mayClear: can(access.role, "asset.clear"),
        done,
      },
      state,
    );
  }

  return new Elysia()
    .get("/app/orgs/:org/assets", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const done = queryOf(request.url).get("done");
      const shown = done === "uploaded" || done === "cleared" ? done : undefined;
      return kit.page(who, await listPage(who, access, {}, shown));
    })
    .post(
      "/app/orgs/:org/assets",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await kit.permit(who, params.org, "story.edit");
        const state: UploadFormState = {
          alt: form.text("alt", 300),
          credit: form.text("credit", 300),
          rights_holder: form.text("rights_holder", 300),
        };
        const decoded = await decodeUpload(form);
        if (!decoded.ok) {
          return kit.page(
            who,
            await listPage(who, access, { ...state, errors: decoded.errors }),
            422,
          );
        }
        try {
          await uploadAsset(
            deps.db,
            access.organization.id,
            decoded.value,
            personActor(who.signedIn.person.id),
          );
        } catch (error) {
          if (!(error instanceof ApiError && error.code === "validation_failed")) throw error;
          const errors = Object.fromEntries(
            (error.fields ?? []).map((f) => [f.field, f.message ?? error.message]),
          );
          return kit.page(who, await listPage(who, access, { ...state, errors }), 422);
        }
        return kit.redirect(`${assetsPath(access)}?done=uploaded`);
      },
      { parse: "none" },
    )
    .post(
      "/app/assets/:id/clear",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        await kit.form(request, who);
        const organizationId = await organizationIdOfAsset(deps.db, params.id);
        const access = await kit.permit(who, organizationId, "asset.clear");
        await clearAsset(
          deps.db,
          access.organization.id,
          params.id,
          personActor(who.signedIn.person.id),
        );
        await announceAssetCleared(deps.bus, access.organization.id, params.id);
        return kit.redirect(`${assetsPath(access)}?done=cleared`);
      },
      { parse: "none" },
    )
    .get("/app/assets/:id/:name", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const organizationId = await organizationIdOfAsset(deps.db, params.id);
      const access = await kit.permit(who, organizationId, "view");
      const variant = await variantBytes(deps.db, access.organization.id, params.id, params.name);
      if (!variant) throw new ApiError("not_found", "No such image.");
      return new Response(variant.data as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": variant.contentType,
          // Uncleared images are shown to the organization's members only: never kept anywhere.
          "cache-control": "private, no-store",
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
        },
      });
    });
}
