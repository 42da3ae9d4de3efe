import type { AssetOut } from "../content/model.ts";

/** Who a page speaks for: the house newsroom or a hosted site, and where its pages live. */
export interface Brand {
  name: string;
  publisher: string;
  accent: string | null;
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
}
