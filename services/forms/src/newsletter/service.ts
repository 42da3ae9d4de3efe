import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import {
  type ConfirmationRow,
  countConfirmationsSince,
  deleteConfirmation,
  findConfirmation,
  insertConfirmation,
  lockAddress,
  lockConfirmation,
  markConfirmationUsed,
  reopenConfirmation,
} from "../confirmations/store.ts";
import {
  CONFIRMATION_VALIDITY_MS,
  confirmationLink,
  emailHash,
  hashToken,
  newConfirmationToken,
  normalizeEmail,
  TOKEN_SHAPE,
} from "../confirmations/tokens.ts";
import type { FormsDeps } from "../deps.ts";
import { contactListUnsubscribe } from "../mailings/lists.ts";
import { sendEmailOnce } from "../send-once.ts";
import { contactListOf } from "./contact-lists.ts";
import { allowedOrigins, houseNewsroomUrl } from "./origins.ts";
import {
  addSubscriber,
  findOrganization,
  findOrganizationBySlug,
  hostedSites,
  type NewsletterOrganization,
  removeSubscriber,
} from "./store.ts";

const HOUR_MS = 60 * 60 * 1000;
/** At most this many confirmation emails an hour to one address, all organizations together. */
const CONFIRMATIONS_PER_HOUR = 2;

export interface Newsletter {
  organization: NewsletterOrganization;
  allowed: Set<string>;
  accent: string | null;
  /** The organization's newsroom (its first hosted site, or the house's), for a link back. */
  home: string | null;
}

/** The organization, the origins allowed to post for it and its accent; null when unknown. */
export async function loadNewsletter(deps: FormsDeps, slug: string): Promise<Newsletter | null> {
  const organization = await findOrganizationBySlug(deps.db, slug);
  if (!organization) return null;
  return describe(deps, organization);
}

async function describe(deps: FormsDeps, organization: NewsletterOrganization) {
  const sites = await hostedSites(deps.db, organization.id);
  return {
    organization,
    allowed: allowedOrigins(deps.config, organization.newsletterOrigins, sites, organization.slug),
    accent: sites[0]?.accent ?? null,
    home: sites[0]
      ? `${deps.config.NEWSROOM_HOST.replace(/\/+$/, "")}/${sites[0].slug}`
      : organization.slug === deps.config.HOUSE_ORG
        ? houseNewsroomUrl(deps.config)
        : null,
  };
}

/**
 * Double opt-in: a confirmation email (at most two an hour to one address), answered `pending`
 * whatever the address's state. Single opt-in (a verified human check): the address joins at
 * once and gets the welcome email, answered `subscribed`. Emails go out after the commit that
 * claims them (see `sendEmailOnce`).
 */
export async function subscribeToOrganization(
  deps: FormsDeps,
  mailer: Mailer,
  organization: NewsletterOrganization,
  input: { email: string; redirect: string | null; singleOptIn: boolean },
): Promise<void> {
  const email = normalizeEmail(input.email);
  const now = deps.now();
  if (input.singleOptIn) {
    // The organization's list in SES first: adding an address again is harmless.
    await deps.contactLists?.addContact(contactListOf(organization), email);
    const hash = emailHash(email);
    const added = await addSubscriber(deps.db, organization.id, hash, now);
    if (added) {
      await sendEmailOnce(mailer, welcomeEmail(organization, email, !!deps.contactLists), () =>
        removeSubscriber(deps.db, organization.id, hash),
      );
    }
    return;
  }
  const { token, tokenHash } = newConfirmationToken();
  const confirmationId = await deps.db.transaction(async (tx) => {
    // One lock and one count for the address across organizations: the limit is per address.
    await lockAddress(tx, `org:${email}`);
    const recent = await countConfirmationsSince(
      tx,
      "org",
      email,
      new Date(now.getTime() - HOUR_MS),
    );
    if (recent >= CONFIRMATIONS_PER_HOUR) return null;
    return insertConfirmation(tx, {
      list: "org",
      organizationId: organization.id,
      email,
      tokenHash,
      redirect: input.redirect,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CONFIRMATION_VALIDITY_MS),
    });
  });
  if (!confirmationId) return;
  const link = confirmationLink(deps.config.PUBLIC_BASE_URL, token);
  await sendEmailOnce(
    mailer,
    {
      to: [email],
      fromName: organization.name,
      subject: `Confirm your subscription to ${organization.name}`,
      text: [
        "Hello,",
        "",
        `Someone (we hope you) asked to receive ${organization.name}'s newsletter at this address.`,
        "To confirm, open this link within 48 hours and press the button:",
        "",
        link,
        "",
        "If it was not you, ignore this email: nothing will be sent without your confirmation.",
      ].join("\n"),
    },
    () => deleteConfirmation(deps.db, confirmationId),
  );
}

/**
 * The welcome email. With a contact list it is sent through SES list management, so it carries
 * the contact's own unsubscribe link (in the text and as RFC 8058 headers), as every issue does.
 */
function welcomeEmail(
  organization: NewsletterOrganization,
  email: string,
  withList: boolean,
): MailMessage {
  const lines = ["Hello,", "", `You are subscribed to ${organization.name}'s weekly newsletter.`];
  const unsubscribe = withList ? contactListUnsubscribe(organization) : null;
  return {
    to: [email],
    fromName: organization.name,
    subject: `You are subscribed to ${organization.name}`,
    text: unsubscribe
      ? [
          ...lines,
          "Every issue carries a link to unsubscribe, as this email does:",
          unsubscribe.link,
        ].join("\n")
      : lines.join("\n"),
    ...(unsubscribe ? { listManagement: unsubscribe.listManagement } : {}),
  };
}

export type OrganizationConfirmation =
  | { status: "confirmed"; newsletter: Newsletter; redirect: string | null }
  | { status: "expired" };

/**
 * Confirms an organization link: the address joins the organization's contact list in SES v2
 * (and our list of subscribers, which keeps only its hash), leaves the confirmation row, and
 * gets the welcome email. A used link answers confirmed again. The link is claimed in one short
 * transaction (used, address forgotten, subscriber added); SES is called after the commit. If SES
 * or the welcome email fails, the claim is taken back and the link stays usable (502).
 */
export async function confirmOrganization(
  deps: FormsDeps,
  mailer: Mailer,
  token: string,
): Promise<OrganizationConfirmation> {
  if (!TOKEN_SHAPE.test(token)) return { status: "expired" };
  const now = deps.now();
  const result = await deps.db.transaction(async (tx) => {
    const row = await lockConfirmation(tx, hashToken(token));
    if (!usable(row, now)) return null;
    const organization = await findOrganization(tx, row.organizationId!);
    if (!organization?.newsletterEnabled) return null;
    if (row.usedAt || !row.email) return { organization, redirect: row.redirect, claim: null };
    const added = await addSubscriber(tx, organization.id, emailHash(row.email), now);
    await markConfirmationUsed(tx, row.id, now, { forgetEmail: true });
    const claim = { confirmationId: row.id, email: row.email, added };
    return { organization, redirect: row.redirect, claim };
  });
  if (!result) return { status: "expired" };
  const { organization, claim } = result;
  if (claim) {
    const withdraw = () =>
      deps.db.transaction(async (tx) => {
        if (claim.added) await removeSubscriber(tx, organization.id, emailHash(claim.email));
        await reopenConfirmation(tx, claim.confirmationId, claim.email);
      });
    try {
      // Adding the same address again on a retry is harmless.
      await deps.contactLists?.addContact(contactListOf(organization), claim.email);
    } catch (error) {
      await withdraw();
      throw error;
    }
    if (claim.added) {
      const welcome = welcomeEmail(organization, claim.email, !!deps.contactLists);
      await sendEmailOnce(mailer, welcome, withdraw);
    }
  }
  return {
    status: "confirmed",
    newsletter: await describe(deps, organization),
    redirect: result.redirect,
  };
}

function usable(row: ConfirmationRow | undefined, now: Date): row is ConfirmationRow {
  return !!row && row.list === "org" && !!row.organizationId && row.expiresAt > now;
}

export type ConfirmationPage =
  | { state: "expired" }
  | { state: "ready" | "used"; list: "digest" }
  | { state: "ready" | "used"; list: "org"; newsletter: Newsletter };

/** What the confirmation link's page shows. Reading it changes nothing. */
export async function describeConfirmation(
  deps: FormsDeps,
  token: string,
): Promise<ConfirmationPage> {
  if (!TOKEN_SHAPE.test(token)) return { state: "expired" };
  const row = await findConfirmation(deps.db, hashToken(token));
  if (!row || row.expiresAt <= deps.now()) return { state: "expired" };
  const state = row.usedAt ? "used" : "ready";
  if (row.list === "digest") return { state, list: "digest" };
  const organization = row.organizationId
    ? await findOrganization(deps.db, row.organizationId)
    : undefined;
  if (!organization?.newsletterEnabled) return { state: "expired" };
  return { state, list: "org", newsletter: await describe(deps, organization) };
}
