import { expect } from "bun:test";
import { createHash } from "node:crypto";
import type { Db } from "@newsroom/shared/db/index";
import {
  digestSubscriptions,
  newsletterConfirmations,
  organizations,
  stories,
} from "@newsroom/shared/db/schema";
import {
  insertHostname,
  insertOrganization,
  insertPublishedStory,
  insertSite,
} from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import {
  envelope,
  type FormsHarness,
  type PostInit,
  random,
  type SesEmail,
  type SesEmulator,
  tokenIn,
} from "./harness.ts";

export interface NewsletterOrg {
  id: string;
  slug: string;
  name: string;
  origin: string;
}

/** An organization with its newsletter turned on for one website origin (and a hosted site). */
export async function newsletterOrg(
  db: Db,
  options: {
    enabled?: boolean;
    site?: { accent?: string; hostname?: string };
    /** The organization's name (the display name its emails are sent under). */
    name?: string;
  } = {},
): Promise<NewsletterOrg> {
  const slug = `org-${random()}`;
  const origin = `https://www.${slug}.example`;
  const org = await insertOrganization(db, {
    slug,
    name: options.name ?? `Acme ${slug}`,
    newsletterEnabled: options.enabled ?? true,
    newsletterOrigins: [origin],
  });
  if (options.site) {
    const site = await insertSite(db, org.id, {
      slug: `site-${random()}`,
      name: "Acme News",
      publisher: "Acme",
      accent: options.site.accent,
    });
    if (options.site.hostname) await insertHostname(db, site, options.site.hostname);
  }
  return { id: org.id, slug, name: org.name, origin };
}

/** A published story of an organization (by slug), published at `publishedAt` (default now). */
export async function publishedStory(
  db: Db,
  orgSlug: string,
  input: { slug: string; title: string; summary?: string; publishedAt?: Date },
): Promise<string> {
  const [org] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.slug, orgSlug));
  const story = await insertPublishedStory(db, org!.id, {
    type: "insight",
    slug: input.slug,
    title: input.title,
    summary: input.summary ?? null,
    body: [{ type: "paragraph", text: input.title }],
  });
  if (input.publishedAt) {
    await db
      .update(stories)
      .set({ publishedAt: input.publishedAt })
      .where(eq(stories.id, story.id));
  }
  return story.id;
}

/**
 * A post to an organization's subscribe route from its website: consent given, a fresh envelope
 * (on the service's clock), the organization's Origin; `body` and `init` add or replace.
 */
export function subscribeTo(
  forms: FormsHarness,
  organization: NewsletterOrg,
  body: Record<string, unknown>,
  init: PostInit = {},
): Promise<Response> {
  return forms.post(
    `/v1/public/newsletter/${organization.slug}/subscribe`,
    { consent: true, ...envelope(forms.clock.now().getTime()), ...body },
    { ...init, headers: { origin: organization.origin, ...init.headers } },
  );
}

/** Subscribes an address with fetch (double opt-in); returns the token of its confirmation link. */
export async function pendingToken(
  forms: FormsHarness,
  ses: SesEmulator,
  email: string,
  organization: NewsletterOrg,
): Promise<string> {
  const response = await subscribeTo(
    forms,
    organization,
    { email },
    { headers: { accept: "application/json" } },
  );
  expect(response.status).toBe(202);
  return tokenIn((await ses.to(email)).at(-1));
}

/** The confirmation row of a newsletter confirmation token (rows keep only its hash). */
export async function confirmationOf(db: Db, token: string) {
  const [row] = await db
    .select()
    .from(newsletterConfirmations)
    .where(eq(newsletterConfirmations.tokenHash, createHash("sha256").update(token).digest("hex")));
  return row;
}

/** The welcome emails of an organization's newsletter that reached an address. */
export async function organizationWelcomes(
  ses: SesEmulator,
  email: string,
  organization: { name: string },
): Promise<SesEmail[]> {
  return (await ses.to(email)).filter(
    (mail) => mail.subject === `You are subscribed to ${organization.name}`,
  );
}

/** Subscribes an address to the weekly digest and confirms it; returns its latest welcome email. */
export async function digestSubscriber(
  forms: FormsHarness,
  ses: SesEmulator,
  email: string,
): Promise<SesEmail> {
  await forms.post("/v1/public/newsletter/subscribe", {
    email,
    consent: true,
    ...envelope(forms.clock.now().getTime()),
  });
  const confirmation = (await ses.to(email)).filter((mail) => mail.subject.startsWith("Confirm"));
  const confirmed = await forms.post("/v1/public/newsletter/subscribe/confirm", {
    t: tokenIn(confirmation.at(-1)),
  });
  expect(confirmed.status).toBe(200);
  const welcome = (await ses.to(email))
    .filter((mail) => mail.subject === "Welcome to the weekly digest")
    .at(-1);
  expect(welcome).toBeDefined();
  return welcome!;
}

/** An address's digest subscription status (`pending`, `subscribed`, ...), if it has one. */
export async function digestStatus(db: Db, email: string) {
  const [row] = await db
    .select({ status: digestSubscriptions.status })
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.email, email));
  return row?.status;
}
