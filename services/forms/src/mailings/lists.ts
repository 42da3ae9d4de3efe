import { createHash } from "node:crypto";
import type { Db } from "@newsroom/shared/db/index";
import { SES_UNSUBSCRIBE_URL } from "@newsroom/shared/mailer";
import type { FormsConfig } from "../config.ts";
import { type ContactLists, contactListOf } from "../newsletter/contact-lists.ts";
import { digestUnsubscribe } from "../unsubscribe/link.ts";
import type { CopyUnsubscribe } from "./issue.ts";
import { confirmedSubscribersAfter, countConfirmedSubscribers } from "./store.ts";

/** One subscriber of a list: the address, and the key its copy records are made from. */
export interface Reader {
  email: string;
  key: string;
}

/**
 * A list an issue goes to: the weekly digest (its subscribers in this service's database) or an
 * organization's newsletter (its subscribers in the organization's SES contact list). A send
 * reads its readers and gives each copy the list's own way to leave it.
 */
export interface MailingList {
  /** The `route` of its copy records for a week. */
  routeOf(week: string): string;
  /** Why a reader receives the issue: the first line of every copy's footer. */
  reason: string;
  /** Its subscribers when a run starts, when the list can count them beforehand. */
  count(): Promise<number | null>;
  /** Its subscribers, a page at a time. */
  readers(): AsyncIterable<Reader[]>;
  /** How a copy lets this reader leave the list: its link, and headers or SES list management. */
  unsubscribeOf(reader: Reader): CopyUnsubscribe;
}

const PAGE_SIZE = 200;

/** The weekly digest: confirmed subscriptions, each copy with its signed unsubscribe link. */
export function digestList(
  db: Db,
  config: Pick<FormsConfig, "PUBLIC_BASE_URL" | "SECRETS_KEY">,
): MailingList {
  return {
    routeOf: (week) => `digest:${week}`,
    reason: "You receive this because you subscribed to the weekly digest.",
    count: () => countConfirmedSubscribers(db),
    async *readers() {
      let after: string | null = null;
      for (;;) {
        const page = await confirmedSubscribersAfter(db, after, PAGE_SIZE);
        if (page.length === 0) return;
        after = page[page.length - 1]!.id;
        yield page.map(({ id, email }) => ({ email, key: id }));
      }
    },
    unsubscribeOf: (reader) => digestUnsubscribe(config, reader.key),
  };
}

/**
 * An organization's newsletter: the opted-in contacts of its SES contact list. Each copy is sent
 * with SES list management, so SES adds the `List-Unsubscribe` and `List-Unsubscribe-Post`
 * (RFC 8058) headers and the contact's own unsubscribe link in the body. A copy's record key
 * holds the SHA-256 of the address, never the address (subscribers live only in SES).
 */
export function newsletterList(
  contactLists: ContactLists,
  organization: { id: string; slug: string; name: string },
): MailingList {
  const list = contactListOf(organization);
  return {
    routeOf: (week) => `newsletter:${organization.id}:${week}`,
    reason: `You receive this because you subscribed to ${organization.name}'s newsletter.`,
    count: async () => null,
    async *readers() {
      for await (const page of contactLists.optedIn(list.name)) {
        yield page.map((email) => {
          const address = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
          return { email, key: `newsletter:${organization.id}:${address}` };
        });
      }
    },
    unsubscribeOf: () => contactListUnsubscribe(organization),
  };
}

/**
 * How every email to an organization's subscribers lets them leave (its copies and its welcome
 * email): SES's own link, which SES writes in for the contact with list management on.
 */
export function contactListUnsubscribe(organization: {
  id: string;
  slug: string;
  name: string;
}): CopyUnsubscribe {
  return {
    link: SES_UNSUBSCRIBE_URL,
    listManagement: { contactListName: contactListOf(organization).name },
  };
}
