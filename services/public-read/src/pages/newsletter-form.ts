import { type Html, html } from "@newsroom/shared/html";
import type { NewsletterTarget } from "./brand.ts";

/**
 * The organization's newsletter sign-up: the same fields and endpoint as the `embed.js`
 * snippet. Without JavaScript the form posts and the forms service answers 303 back to
 * `returnTo` with `?newsletter=…`; with it, embed.js posts in place and shows the outcome.
 */
export function newsletterForm(target: NewsletterTarget, returnTo: string): Html {
  const base = target.apiBase.replace(/\/+$/, "");
  const action = `${base}/v1/public/newsletter/${encodeURIComponent(target.org)}/subscribe`;
  return html`<aside class="newsletter" aria-labelledby="newsletter-heading">
<h2 id="newsletter-heading">Newsletter</h2>
<form data-newsletter method="post" action="${action}">
<label for="newsletter-email">Email</label>
<input id="newsletter-email" type="email" name="email" autocomplete="email" required>
<label><input type="checkbox" name="consent" value="on" required> Send me the newsletter</label>
<input type="hidden" name="submission_id" value="">
<input type="hidden" name="started_at" value="">
<input type="hidden" name="redirect" value="${returnTo}">
<div hidden><label>Fax <input name="fax" tabindex="-1" autocomplete="off"></label></div>
<button type="submit">Subscribe</button>
<p data-newsletter-status role="status" aria-live="polite"></p>
</form>
<script src="${base}/v1/public/newsletter/embed.js" defer></script>
</aside>`;
}
