import type { IconSpec } from "@newsroom/shared/icon";
import type { AssetOut } from "../content/model.ts";

/** Who a page speaks for: the house newsroom or a hosted site, and where its pages live. */
export interface Brand {
  name: string;
  publisher: string;
  accent: string | null;
  /** Its icon (`<link rel="icon">` and `/favicon.ico`): the house's, or the accent and initial. */
  icon: IconSpec;
  /** A cleared logo, or null. */
  logo: AssetOut | null;
  /** The newsroom's canonical home (its index); items live at `{home}/{slug}`. */
  home: string;
  /** Topic pages live at `{topicBase}/{slug}`. */
  topicBase: string;
  /** Search engines may index it (a site that is not live is `noindex`). */
  live: boolean;
  /** The organization's newsletter form, when its newsletter is enabled. */
  newsletter: NewsletterTarget | null;
}

export interface NewsletterTarget {
  /** The organization's slug, as in `/v1/public/newsletter/{org}/subscribe`. */
  org: string;
  /** The API's public base (PUBLIC_BASE_URL). */
  apiBase: string;
  /**
   * The newsroom's home at the address being browsed, when it is not the canonical `home` (a
   * hosted site read at NEWSROOM_HOST's path while its canonical home is its hostname): a
   * sign-up returns there, to the page the reader came from, never to a hostname that may not
   * resolve (a demo's, in development).
   */
  browsedHome?: string;
}

/** `address` (under the canonical home) at the address being browsed, for a sign-up's return. */
export function browsedAddress(address: string, brand: Brand): string {
  const browsed = brand.newsletter?.browsedHome;
  if (!browsed || !address.startsWith(brand.home)) return address;
  return `${browsed}${address.slice(brand.home.length)}`;
}
