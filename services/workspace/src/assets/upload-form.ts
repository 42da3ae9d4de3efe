import { ApiError } from "@newsroom/shared/errors";
import { readLimitedBody } from "@newsroom/shared/http/limited-body";
import { MAX_UPLOAD_BYTES, UPLOAD_BODY_LIMIT } from "@newsroom/shared/uploads";
import { decodeForm } from "../web/form-decode.ts";
import { FormFields } from "../web/kit.ts";
import { sniffImageType, UNSUPPORTED_TYPE_MESSAGE } from "./images.ts";
import { AssetUploadIn } from "./model.ts";
import type { AssetUpload } from "./service.ts";

/** An upload's fields, or the fields it refused with the page's and the API's wording. */
export type DecodedUpload =
  | { ok: true; value: AssetUpload }
  | { ok: false; errors: Record<string, string> };

/**
 * The file and text fields of an upload form (internal API and web app alike): the file is
 * required and at most MAX_UPLOAD_BYTES, checked before anything decodes it; the text fields
 * are decoded with AssetUploadIn.
 */
export async function decodeUpload(form: FormFields): Promise<DecodedUpload> {
  const decoded = decodeForm(form, AssetUploadIn, {
    wording: { alt: "Describe the image for people who cannot see it (alt text is required)." },
  });
  const errors: Record<string, string> = decoded.ok ? {} : { ...decoded.errors };
  const file = form.file("file");
  let bytes: Uint8Array | null = null;
  if (!file || file.size === 0) {
    errors.file = "Choose an image file (JPEG, PNG, WebP or AVIF).";
  } else if (file.size > MAX_UPLOAD_BYTES) {
    errors.file = `The file is ${file.size.toLocaleString("en")} bytes; at most 10 MB (${MAX_UPLOAD_BYTES.toLocaleString("en")} bytes) is accepted.`;
  } else {
    bytes = new Uint8Array(await file.arrayBuffer());
    // Said beside the other fields' errors at once; the image is decoded only once they pass.
    if (!sniffImageType(bytes)) errors.file = UNSUPPORTED_TYPE_MESSAGE;
  }
  if (!decoded.ok || !bytes || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { ...decoded.value, bytes } };
}

/** The internal API's upload body: multipart only, at most UPLOAD_BODY_LIMIT bytes. */
export async function readUploadRequest(request: Request): Promise<AssetUpload> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    throw new ApiError("unsupported_body", "The body must be multipart/form-data.");
  }
  const bytes = await readLimitedBody(
    request,
    UPLOAD_BODY_LIMIT,
    () =>
      new ApiError(
        "body_too_large",
        `The file may be at most 10 MB (${MAX_UPLOAD_BYTES} bytes); the body at most ${UPLOAD_BODY_LIMIT} bytes.`,
      ),
  );
  let data: FormData;
  try {
    data = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new ApiError("validation_failed", "The multipart body could not be parsed.", {
      fields: [{ field: "body", reason: "invalid_multipart" }],
    });
  }
  const decoded = await decodeUpload(new FormFields(data));
  if (decoded.ok) return decoded.value;
  throw new ApiError("validation_failed", "The upload has invalid fields.", {
    fields: Object.entries(decoded.errors).map(([field, message]) => ({
      field,
      reason: "invalid",
      message,
    })),
  });
}
