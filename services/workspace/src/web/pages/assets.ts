import { type Html, html } from "@newsroom/shared/html";
import { privateVariantPath } from "../../assets/model.ts";
import type { AssetWithVariants } from "../../assets/service.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";

const THUMBNAIL_WIDTH = 160;

export interface AssetsPageData {
  access: OrgAccess;
  assets: AssetWithVariants[];
  mayUpload: boolean;
  mayClear: boolean;
  /** What the last action did (after its redirect). */
  done?: "uploaded" | "cleared";
}

export interface UploadFormState {
  alt?: string;
  credit?: string;
  rights_holder?: string;
  errors?: Record<string, string>;
}

function thumbnail({ row, variants }: AssetWithVariants): Html {
  const smallest = variants.find((variant) => variant.contentType === "image/webp");
  if (!smallest || !row.width || !row.height) return html`<span class="hint">No preview</span>`;
  const height = Math.max(1, Math.round((THUMBNAIL_WIDTH * row.height) / row.width));
  return html`<img src="${privateVariantPath(row.id, smallest.name)}" width="${String(THUMBNAIL_WIDTH)}" height="${String(height)}" alt="${row.alt}">`;
}

function assetList(who: Visitor, data: AssetsPageData): Html {
  if (data.assets.length === 0) return html`<p>No images yet.</p>`;
  return html`<ul class="assets">${data.assets.map((asset) => {
    const { row } = asset;
    const clear =
      data.mayClear && !row.cleared
        ? html`<form method="post" action="/app/assets/${row.id}/clear">${csrfInput(who)}
  <button type="submit">Clear for publication<span class="visually-hidden">: ${row.alt}</span></button></form>`
        : "";
    return html`<li>${thumbnail(asset)}
<div><p><span class="status">${row.cleared ? "cleared" : "uncleared"}</span>
${row.contentType ?? row.kind}${row.width && row.height ? html`, ${String(row.width)} × ${String(row.height)} px` : ""}</p>
<p>Alt text: ${row.alt || html`<em>none</em>`}</p>
${row.credit ? html`<p>Credit: ${row.credit}</p>` : ""}
${row.rightsHolder ? html`<p>Rights holder: ${row.rightsHolder}</p>` : ""}
<p class="hint">Asset id <code>${row.id}</code></p>
${clear}</div></li>`;
  })}</ul>`;
}

function uploadForm(who: Visitor, data: AssetsPageData, state: UploadFormState): Html {
  const slug = encodeURIComponent(data.access.organization.slug);
  const errors = state.errors ?? {};
  return html`<section aria-labelledby="upload-image"><h2 id="upload-image">Upload an image</h2>
${Object.keys(errors).length > 0 ? notice("error", "The image was not uploaded: see the fields below.") : ""}
<form method="post" action="/app/orgs/${slug}/assets" enctype="multipart/form-data" novalidate>${csrfInput(who)}
${field({
  name: "file",
  label: "Image file",
  type: "file",
  hint: "JPEG, PNG, WebP or AVIF, at most 10 MB. Location and camera data are removed.",
  error: errors.file,
  required: true,
  extra: html` accept="image/jpeg,image/png,image/webp,image/avif"`,
})}
${field({
  name: "alt",
  label: "Alt text",
  hint: "What the image shows, for people who cannot see it.",
  value: state.alt,
  error: errors.alt,
  required: true,
})}
${field({ name: "credit", label: "Credit line (optional)", value: state.credit, error: errors.credit })}
${field({
  name: "rights_holder",
  label: "Rights holder (optional)",
  value: state.rights_holder,
  error: errors.rights_holder,
})}
<button type="submit">Upload image</button>
</form></section>`;
}

/** /app/orgs/{org}/assets: the organization's images, the upload form, the Clear buttons. */
export function assetsPage(who: Visitor, data: AssetsPageData, state: UploadFormState = {}): Html {
  return layout(
    who,
    `Images of ${data.access.organization.name}`,
    html`${data.done === "uploaded" ? notice("info", "The image was uploaded. It stays off public pages until an approver clears it.") : ""}
${data.done === "cleared" ? notice("info", "The image was cleared: public pages may show it now.") : ""}
<p>Uploaded images are <strong>uncleared</strong> until an approver, admin or owner clears them;
until then no public page, feed, sitemap or webhook shows them. A story's image block names an
image by its asset id.</p>
${data.mayUpload ? uploadForm(who, data, state) : ""}
<h2>Images</h2>
${assetList(who, data)}`,
    {
      org: {
        slug: data.access.organization.slug,
        name: data.access.organization.name,
        current: "assets",
        role: data.access.role,
      },
    },
  );
}
