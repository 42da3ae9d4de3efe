/**
 * File uploads: the one size rule. An uploaded file is at most 10 MB; the upload routes take a
 * multipart body of that plus room for the text fields, every other route the edge's 1 MiB.
 */
export const MAX_UPLOAD_BYTES = 10_000_000;
export const UPLOAD_BODY_LIMIT = MAX_UPLOAD_BYTES + 256 * 1024;

const UPLOAD_PATH = /^\/(?:internal\/v1|app)\/orgs\/[^/]+\/assets\/?$/;

/** Whether a path is an upload route (the internal API's and the web app's asset uploads). */
export function isUploadPath(path: string): boolean {
  return UPLOAD_PATH.test(path);
}
