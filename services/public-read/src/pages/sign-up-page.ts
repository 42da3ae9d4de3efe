import { type Html, html } from "@newsroom/shared/html";
import { type Brand, browsedAddress, type NewsletterTarget } from "./brand.ts";
import { layout } from "./layout.ts";
import { newsletterForm, SIGN_UP_SEGMENT } from "./newsletter-form.ts";

/**
 * The newsletter sign-up on a page of its own, for readers without JavaScript: rendered for each
 * request (never cached) with its own submission id and the time it was shown.
 */
export function signUpPage(brand: Brand, target: NewsletterTarget): Html {
  const home = brand.home;
  const browsed = browsedAddress(home, brand);
  return layout({
    brand: { ...brand, newsletter: null, live: false },
    title: "Newsletter",
    description: `Sign up for ${brand.name}'s newsletter.`,
    canonical: `${home}/${SIGN_UP_SEGMENT}`,
    main: html`<h1>Newsletter</h1>
${newsletterForm(target, browsed, `${browsed}/${SIGN_UP_SEGMENT}`, {
  submissionId: crypto.randomUUID(),
  startedAt: Date.now(),
})}`,
  });
}
