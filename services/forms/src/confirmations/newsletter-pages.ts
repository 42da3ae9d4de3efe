import type { PageContent } from "./pages.ts";

/**
 * The copy of the newsletter confirmation pages, the weekly digest's and the organizations'.
 * The routes choose a page and its status; what the page says is written here.
 */

const DIGEST = "Weekly digest";
/** The brand of pages that cannot tell which organization they speak for (errors, expired links). */
const NEWSLETTER = "Newsletter";

/** The link back of a subscribed or unsubscribed page, to the newsroom at `href`. */
export function backTo(href: string | null, name = "the newsroom"): PageContent["back"] {
  return href ? { href, label: `Back to ${name}` } : null;
}

/** A digest confirmation that worked, or a link that no longer does. */
export function digestPage(outcome: "confirmed" | "expired", newsroom: string): PageContent {
  return outcome === "confirmed"
    ? {
        title: "Subscription confirmed",
        heading: "You are subscribed",
        message:
          "The weekly digest will reach you once a week. Every issue has an unsubscribe link.",
        brand: DIGEST,
        back: backTo(newsroom),
      }
    : {
        title: "Link expired",
        heading: "This link has expired",
        message: "Confirmation links work for 48 hours. Subscribe again to get a new one.",
        brand: DIGEST,
      };
}

/** A digest confirmation link's page: one button that posts `token` to `action`. */
export function digestConfirmationPage(action: string, token: string): PageContent {
  return {
    title: "Confirm your subscription",
    heading: "Confirm your subscription",
    message: "Press the button to receive the weekly digest at the address this link was sent to.",
    brand: DIGEST,
    form: { action, token, button: "Confirm subscription" },
  };
}

/** An organization's confirmation link that is unknown, used up or past its 48 hours. */
export const EXPIRED_PAGE: PageContent = {
  title: "Link expired",
  heading: "This link has expired",
  message: "Confirmation links work for 48 hours. Subscribe again on the website to get a new one.",
  brand: NEWSLETTER,
};

/** An organization's confirmation link's page: one button that posts `token` to `action`. */
export function organizationConfirmationPage(
  name: string,
  accent: string | null,
  action: string,
  token: string,
): PageContent {
  return {
    title: `Confirm your subscription to ${name}`,
    heading: "Confirm your subscription",
    message: `Press the button to receive ${name}'s newsletter at the address this link was sent to.`,
    brand: name,
    accent,
    form: { action, token, button: "Confirm subscription" },
  };
}

/** A confirmed subscription to an organization's newsletter (`heading` for a link used before). */
export function subscribedPage(
  name: string,
  accent: string | null,
  home: string | null,
  heading = "You are subscribed",
): PageContent {
  return {
    title: `Subscribed to ${name}`,
    heading,
    message: `You will receive ${name}'s newsletter. Every issue has a link to unsubscribe.`,
    brand: name,
    accent,
    back: backTo(home, name),
  };
}

const ERROR_PAGES: Partial<Record<number, PageContent>> = {
  429: {
    title: "Too many attempts",
    heading: "Too many attempts",
    message: "Wait a minute, then try again.",
    brand: NEWSLETTER,
  },
  502: {
    title: "Not finished",
    heading: "We could not finish",
    message:
      "The confirmation could not be completed. Your link still works: try again in a moment.",
    brand: NEWSLETTER,
  },
  503: {
    title: "Unavailable",
    heading: "Newsletters are unavailable",
    message: "Try again later.",
    brand: NEWSLETTER,
  },
};

/** The page for an error status a person can act on; undefined for the others (JSON stays). */
export function errorPage(status: number): PageContent | undefined {
  return ERROR_PAGES[status];
}
