import type { DigestRunOut } from "@newsroom/shared/mailings";

export { DigestRunOut, MailingSendIn, NewsletterRunOut } from "@newsroom/shared/mailings";

/** The counts a run fills in as it sends. */
export type CopyCounts = Pick<
  DigestRunOut,
  "sent" | "already_sent" | "failed" | "unconfirmed" | "stopped"
>;
