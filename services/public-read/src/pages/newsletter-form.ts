import { type Html, html } from "@newsroom/shared/html";
import type { NewsletterTarget } from "./brand.ts";

/**
 * The organization's newsletter sign-up: the same fields and endpoint as the `embed.js`
 * snippet. Without JavaScript the form posts and the forms service answers 303 back to
 * `returnTo` with `?newsletter=…`; with it, embed.js posts in place and shows the outcome.
 * A cached page cannot carry a submission id of its own (every reader would share it): embed.js
 * fills it in, and without JavaScript the reader is pointed to `signUpPage`, rendered for each
 * request with `fresh` values.
 */
export const SIGN_UP_SEGMENT = "_newsletter";

export function newsletterForm(
  target: NewsletterTarget,
  returnTo: string,
  signUpPage: string,
  fresh?: { submissionId: string; startedAt: number },
): Html {
  const base = target.apiBase.replace(/\/+$/, "");
  const action = `${base}/v1/public/newsletter/${encodeURIComponent(target.org)}/subscribe`;
  return html`<aside class="newsletter" aria-labelledby="newsletter-heading">
<h2 id="newsletter-heading">Newsletter</h2>
<form data-newsletter method="post" action="${action}">
<label for="newsletter-email">Email</label>
<input id="newsletter-email" type="email" name="email" autocomplete="email" required>
<label><input type="checkbox" name="consent" value="on" required> Send me the newsletter</label>
<input type="hidden" name="submission_id" value="${fresh?.submissionId ?? ""}">
<input type="hidden" name="started_at" value="${fresh ? String(fresh.startedAt) : ""}">
<input type="hidden" name="redirect" value="${returnTo}">
<div hidden><label>Fax <input name="fax" tabindex="-1" autocomplete="off"></label></div>
<button type="submit">Subscribe</button>
<p data-newsletter-status role="status" aria-live="polite"></p>
</form>
${fresh ? "" : html`<noscript><p>Without JavaScript, <a href="${signUpPage}">sign up on the newsletter page</a>.</p></noscript>`}
<script src="${base}/v1/public/newsletter/embed.js" defer></script>
</aside>`;
}
