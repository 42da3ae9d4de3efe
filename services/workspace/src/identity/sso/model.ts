import { iso } from "@newsroom/shared/records";
import { t } from "elysia";
import type { SsoConfigRow } from "./store.ts";

/** The redirect path at the provider, under APP_URL. */
export const SSO_CALLBACK_PATH = "/sso/callback";

/** What an organization's single sign-on is set to: the same fields from a form or the API. */
export interface SsoConfigInput {
  issuer: string;
  clientId: string;
  /** Empty keeps the stored secret, for the same issuer and client id only. */
  clientSecret: string;
  allowedDomains: string[];
  enabled: boolean;
}

/**
 * The internal API's body; `client_secret` may be left out to keep the stored one while the
 * issuer and client id stay the same.
 */
export const SsoConfigIn = t.Object({
  issuer: t.String({ maxLength: 500 }),
  client_id: t.String({ maxLength: 255 }),
  client_secret: t.Optional(t.String({ maxLength: 500 })),
  allowed_domains: t.Array(t.String({ maxLength: 253 }), { maxItems: 50 }),
  enabled: t.Boolean(),
});

export function ssoConfigOut(row: SsoConfigRow) {
  return {
    object: "sso_configuration" as const,
    organization_id: row.organizationId,
    issuer: row.issuer,
    client_id: row.clientId,
    client_secret_last4: row.clientSecretHint,
    allowed_domains: row.allowedDomains,
    enabled: row.enabled,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export type SsoField = "issuer" | "client_id" | "client_secret" | "allowed_domains";

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** "Example.com, news.example.org" as typed in the form: lower-cased, blanks dropped. */
export function parseDomainList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean);
}

/** The domain of an address, lower-cased; "" when it has none. */
export function domainOfEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return at === -1
    ? ""
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

/**
 * The issuer must be https. Plain http is accepted only for a provider on this machine's loopback
 * and only where `allowLoopbackHttp` (local development and tests): a deployment never sends its
 * client secret, or trusts tokens, over an unencrypted connection.
 */
export function issuerProblem(issuer: string, allowLoopbackHttp: boolean): string | null {
  if (!URL.canParse(issuer)) return "Enter the provider's issuer URL, starting with https://.";
  const url = new URL(issuer);
  if (url.search || url.hash || url.username || url.password) {
    return "The issuer URL has no query, fragment or credentials.";
  }
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && allowLoopbackHttp && LOOPBACK_HOSTS.has(url.hostname))
    return null;
  return "The issuer URL must start with https://.";
}

/** The problems of a configuration, by field; empty when it can be saved. */
export function ssoConfigProblems(
  input: SsoConfigInput,
  options: {
    /** The stored configuration: its secret is kept only for the same issuer and client. */
    stored: { issuer: string; clientId: string } | null;
    allowLoopbackHttp: boolean;
  },
): Partial<Record<SsoField, string>> {
  const problems: Partial<Record<SsoField, string>> = {};
  const issuer = issuerProblem(input.issuer, options.allowLoopbackHttp);
  if (issuer) problems.issuer = issuer;
  if (!input.clientId || /[\s\p{Cc}]/u.test(input.clientId)) {
    problems.client_id = "Enter the client id the provider gave you.";
  }
  const { stored } = options;
  if (!input.clientSecret && !stored) {
    problems.client_secret = "Enter the client secret the provider gave you.";
  } else if (
    !input.clientSecret &&
    (stored!.issuer !== input.issuer || stored!.clientId !== input.clientId)
  ) {
    // The stored secret was given for one provider and client; it is never sent to another.
    problems.client_secret =
      "Enter the client secret again: a new issuer or client id needs its own secret.";
  } else if (/\p{Cc}/u.test(input.clientSecret)) {
    problems.client_secret = "The client secret holds a control character.";
  }
  const wrong = input.allowedDomains.filter((domain) => !DOMAIN.test(domain));
  if (wrong.length > 0) {
    problems.allowed_domains = `Not a domain: ${wrong.join(", ")}.`;
  } else if (input.enabled && input.allowedDomains.length === 0) {
    problems.allowed_domains = "Name at least one email domain before enabling single sign-on.";
  } else if (input.allowedDomains.length > 50) {
    problems.allowed_domains = "Name at most 50 domains.";
  }
  return problems;
}
