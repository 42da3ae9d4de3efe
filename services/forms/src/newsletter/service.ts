import type { Mailer } from "@newsroom/shared/mailer";
import {
  type ConfirmationRow,
  countConfirmationsSince,
  findConfirmation,
  insertConfirmation,
  lockAddress,
  lockConfirmation,
  markConfirmationUsed,
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
import { contactListOf } from "./contact-lists.ts";
import { allowedOrigins } from "./origins.ts";
import {
  addSubscriber,
  findOrganization,
  findOrganizationBySlug,
  hostedSites,
  type NewsletterOrganization,
} from "./store.ts";

const HOUR_MS = 60 * 60 * 1000;
/** At most this many confirmation emails an hour to one address for one organization. */
const CONFIRMATIONS_PER_HOUR = 2;

export interface Newsletter {
  organization: NewsletterOrganization;
  allowed: Set<string>;
  accent: string | null;
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
    allowed: allowedOrigins(deps.config, organization.newsletterOrigins, sites),
    accent: sites[0]?.accent ?? null,
  };
}

/**
 * Double opt-in: a confirmation email (at most two an hour to one address), answered `pending`
 * whatever the address's state. Single opt-in (a verified human check): the address joins at
 * once and gets the welcome email, answered `subscribed`.
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
    await deps.db.transaction(async (tx) => {
      await deps.contactLists?.addContact(contactListOf(organization), email);
      const added = await addSubscriber(tx, organization.id, emailHash(email), now);
      if (added) await mailer.send(welcomeEmail(organization, email));
    });
    return;
  }
  await deps.db.transaction(async (tx) => {
    await lockAddress(tx, `org:${organization.id}:${email}`);
    const since = new Date(now.getTime() - HOUR_MS);
    const recent = await countConfirmationsSince(
      tx,
      { list: "org", organizationId: organization.id },
      email,
      since,
    );
    if (recent >= CONFIRMATIONS_PER_HOUR) return;
    const { token, tokenHash } = newConfirmationToken();
    await insertConfirmation(tx, {
      list: "org",
      organizationId: organization.id,
      email,
      tokenHash,
      redirect: input.redirect,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CONFIRMATION_VALIDITY_MS),
    });
    const link = confirmationLink(deps.config.PUBLIC_BASE_URL, token);
    await mailer.send({
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
    });
  });
}

function welcomeEmail(organization: NewsletterOrganization, email: string) {
  return {
    to: [email],
    fromName: organization.name,
    subject: `You are subscribed to ${organization.name}`,
    text: [
      "Hello,",
      "",
      `You are subscribed to ${organization.name}'s weekly newsletter.`,
      "Every issue carries a link to unsubscribe.",
    ].join("\n"),
  };
}

export type OrganizationConfirmation =
  | { status: "confirmed"; newsletter: Newsletter; redirect: string | null }
  | { status: "expired" };

/**
 * Confirms an organization link: the address joins the organization's contact list in SES v2
 * (and our list of subscribers, which keeps only its hash), leaves the confirmation row, and
 * gets the welcome email. A used link answers confirmed again. If SES or the welcome email
 * refuses, nothing is kept here and the link stays usable.
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
    if (!row.usedAt && row.email) {
      // The organization's list in SES first: if it refuses, nothing here changes (502, the
      // link stays usable); adding the same address again on a retry is harmless.
      await deps.contactLists?.addContact(contactListOf(organization), row.email);
      const added = await addSubscriber(tx, organization.id, emailHash(row.email), now);
      await markConfirmationUsed(tx, row.id, now, { forgetEmail: true });
      if (added) await mailer.send(welcomeEmail(organization, row.email));
    }
    return { organization, redirect: row.redirect };
  });
  if (!result) return { status: "expired" };
  return {
    status: "confirmed",
    newsletter: await describe(deps, result.organization),
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
