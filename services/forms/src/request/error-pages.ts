import type { ErrorRenderer } from "@newsroom/shared/http/http-kit";
import { errorPage } from "../confirmations/newsletter-pages.ts";
import { pageResponse } from "../confirmations/pages.ts";

/** Requests a person makes from a link in an email: their failures are pages, not JSON. */
const pageRequests = new WeakSet<Request>();

/** Marks a request whose failures the person sees as a page. */
export function failWithPages(request: Request): void {
  pageRequests.add(request);
}

/**
 * The forms' `renderError` (the HTTP kit's one error path): a small page with the failure's
 * status for a marked request, when that status has one; otherwise the Error record.
 */
export const errorAsPage: ErrorRenderer = (_thrown, request, failureOf) => {
  if (!pageRequests.has(request)) return undefined;
  const failure = failureOf();
  const page = errorPage(failure.status);
  if (!page) return undefined;
  const response = pageResponse(page, failure.status);
  for (const [name, value] of Object.entries(failure.headers)) response.headers.set(name, value);
  return response;
};
