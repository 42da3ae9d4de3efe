import { Elysia } from "elysia";
import { announceAssetCleared } from "../announce.ts";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { assetOut } from "./model.ts";
import {
  type AssetWithVariants,
  clearAsset,
  getAsset,
  listAssets,
  organizationIdOfAsset,
  uploadAsset,
} from "./service.ts";
import { readUploadRequest } from "./upload-form.ts";

const out = ({ row, variants }: AssetWithVariants) => assetOut(row, variants);

/** Uploaded images: upload (uncleared), list, read one, clear for publication. */
export function assetsRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/orgs/:org/assets", async ({ params }) => {
      const org = await findOrganization(deps.db, params.org);
      return listOf((await listAssets(deps.db, org.id)).map(out));
    })
    .post(
      "/internal/v1/orgs/:org/assets",
      async ({ params, request, set }) => {
        const org = await findOrganization(deps.db, params.org);
        const upload = await readUploadRequest(request);
        set.status = 201;
        return out(await uploadAsset(deps.db, org.id, upload));
      },
      { parse: "none" },
    )
    .get("/internal/v1/assets/:id", async ({ params }) => {
      const organizationId = await organizationIdOfAsset(deps.db, params.id);
      return out(await getAsset(deps.db, organizationId, params.id));
    })
    .post("/internal/v1/assets/:id/clear", async ({ params }) => {
      const organizationId = await organizationIdOfAsset(deps.db, params.id);
      const cleared = await clearAsset(deps.db, organizationId, params.id);
      await announceAssetCleared(deps.bus, organizationId, params.id);
      return out(cleared);
    });
}
