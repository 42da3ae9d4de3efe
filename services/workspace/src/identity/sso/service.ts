import { createHash } from "node:crypto";
import { addressLimitKey } from "@newsroom/shared/address-limit-key";
import type { Db } from "@newsroom/shared/db/index";
import { randomToken } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { checkLimit, type RateLimitStore } from "@newsroom/shared/rate-limit";
import { open, seal } from "@newsroom/shared/secret-box";
import * as oidc from "openid-client";
import { audit } from "../../audit.ts";
import { findOrganization, type OrganizationRow } from "../../resolve.ts";
import { findPersonByEmail, membershipsOfPerson, type PersonRow } from "../members/store.ts";
import {
  domainOfEmail,
  issuerProblem,
  SSO_CALLBACK_PATH,
  type SsoConfigInput,
  type SsoField,
  ssoConfigProblems,
} from "./model.ts";
import {
  enabledSsoOrganizationsForDomain,
  findSsoConfig,
  insertSsoAttempt,
  keepVerifiedDomains,
  lockSsoConfig,
  type SsoConfigRow,
  saveSsoConfig,
  takeSsoAttempt,
  verifiedDomainsOf,
} from "./store.ts";

/** How long a browser has between leaving for the provider and coming back. */
export const SSO_ATTEMPT_TTL_MS = 10 * 60_000;
/**
 * Each start and callback calls the provider: per client address, at most this many in the
 * window (a sign-in is two), so the app cannot be used to flood a provider.
 */
export const SSO_REQUESTS_PER_CLIENT = 60;
const SSO_WINDOW_SECONDS = 600;
/** Seconds one call to the provider (discovery, keys, token) may take. */
const PROVIDER_TIMEOUT_S = 10;

/**
 * Saves an organization's single sign-on configuration (created when new) and audits it. The
 * client secret is sealed; an empty one keeps the stored secret if the issuer and client id stay.
 */
export async function configureSso(
  db: Db,
  secretsKey: Buffer,
  organizationId: string,
  input: SsoConfigInput,
  options: { actor: string; allowLoopbackHttp: boolean; now: Date },
): Promise<
  { ok: true; row: SsoConfigRow } | { ok: false; problems: Partial<Record<SsoField, string>> }
> {
  return db.transaction(async (tx) => {
    const before = await lockSsoConfig(tx, organizationId);
    const problems = ssoConfigProblems(input, {
      stored: before,
      allowLoopbackHttp: options.allowLoopbackHttp,
    });
    if (Object.keys(problems).length > 0) return { ok: false as const, problems };
    const secret = input.clientSecret
      ? { ciphertext: seal(input.clientSecret, secretsKey), hint: input.clientSecret.slice(-4) }
      : { ciphertext: before!.clientSecretCiphertext, hint: before!.clientSecretHint };
    const row = await saveSsoConfig(
      tx,
      organizationId,
      {
        issuer: input.issuer,
        clientId: input.clientId,
        clientSecretCiphertext: secret.ciphertext,
        clientSecretHint: secret.hint,
        allowedDomains: [...new Set(input.allowedDomains)],
        enabled: input.enabled,
      },
      options.now,
    );
    // A domain that stays keeps its verification; one taken off the list loses it.
    await keepVerifiedDomains(tx, organizationId, row.allowedDomains);
    const actions = [before ? "sso.updated" : "sso.configured"];
    if (input.clientSecret && before) actions.push("sso.client_secret_replaced");
    if (row.enabled !== (before?.enabled ?? false)) {
      actions.push(row.enabled ? "sso.enabled" : "sso.disabled");
    }
    for (const action of actions) await audit(tx, organizationId, action, null, options.actor);
    return { ok: true as const, row };
  });
}

/** A refusal of the sign-in flow: its page's status and message, and the reason for the audit. */
export interface SsoRefusal {
  ok: false;
  status: 400 | 403 | 404 | 429 | 502;
  reason: string;
  message: string;
}

const refuse = (status: SsoRefusal["status"], reason: string, message: string): SsoRefusal => ({
  ok: false,
  status,
  reason,
  message,
});

const THROTTLED = refuse(
  429,
  "throttled",
  "Too many single sign-on attempts from your network. Wait a few minutes, then try again.",
);

const NOT_SET_UP = refuse(
  404,
  "not_configured",
  "Single sign-on is not set up for this organization. Sign in with an emailed code instead.",
);

export function hashAttemptToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export interface SsoServiceDeps {
  db: Db;
  secretsKey: Buffer;
  /** APP_URL without a trailing slash: the redirect URI is `{APP_URL}/sso/callback`. */
  appUrl: string;
  rateLimits: RateLimitStore;
  now: () => Date;
}

/** Sign-in through an organization's OpenID Connect provider: code flow with PKCE and nonce. */
export function createSsoService(deps: SsoServiceDeps) {
  const redirectUri = `${deps.appUrl}${SSO_CALLBACK_PATH}`;
  // An http issuer was only accepted for a loopback provider where the app itself runs on http.
  const allowLoopbackHttp = deps.appUrl.startsWith("http:");

  /** The provider's metadata and keys, checked to name the stored issuer. */
  async function providerOf(config: SsoConfigRow): Promise<oidc.Configuration> {
    if (issuerProblem(config.issuer, allowLoopbackHttp)) {
      throw new Error("the stored issuer is not allowed here");
    }
    const insecure = new URL(config.issuer).protocol === "http:";
    return oidc.discovery(
      new URL(config.issuer),
      config.clientId,
      undefined,
      oidc.ClientSecretBasic(open(config.clientSecretCiphertext, deps.secretsKey)),
      {
        timeout: PROVIDER_TIMEOUT_S,
        // Tokens come straight from the token endpoint; their signature is checked all the same.
        execute: insecure
          ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks]
          : [oidc.enableNonRepudiationChecks],
      },
    );
  }

  async function enabledConfigOf(orgIdOrSlug: string) {
    const organization = await findOrganization(deps.db, orgIdOrSlug).catch(() => null);
    if (!organization) return null;
    const config = await findSsoConfig(deps.db, organization.id);
    return config?.enabled ? { organization, config } : null;
  }

  async function throttled(clientIp: string): Promise<boolean> {
    const key = `sso:ip:${addressLimitKey(clientIp)}`;
    return !(await checkLimit(deps.rateLimits, key, SSO_REQUESTS_PER_CLIENT, SSO_WINDOW_SECONDS))
      .allowed;
  }

  const unreachable = (organization: OrganizationRow, error: unknown) => {
    log.warn("sso provider unreachable", {
      organization_id: organization.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return refuse(
      502,
      "provider_unreachable",
      "Your organization's sign-in provider did not answer as expected. Try again later.",
    );
  };

  return {
    /**
     * Which organization a sign-in form names: a slug, or an address whose domain exactly one
     * organization with single sign-on enabled allows. Null when none (or several) fit.
     */
    async organizationFor(slugOrEmail: string): Promise<string | null> {
      const text = slugOrEmail.trim().toLowerCase();
      if (!text) return null;
      if (!text.includes("@")) return (await enabledConfigOf(text))?.organization.slug ?? null;
      const slugs = await enabledSsoOrganizationsForDomain(deps.db, domainOfEmail(text));
      return slugs.length === 1 ? slugs[0]! : null;
    },

    /**
     * Starts a sign-in: the provider's authorization URL, and the token for the browser's
     * cookie that binds the callback to this browser.
     */
    async start(
      orgIdOrSlug: string,
      clientIp: string,
    ): Promise<{ ok: true; location: string; token: string } | SsoRefusal> {
      if (await throttled(clientIp)) return THROTTLED;
      const found = await enabledConfigOf(orgIdOrSlug);
      if (!found) return NOT_SET_UP;
      let provider: oidc.Configuration;
      try {
        provider = await providerOf(found.config);
      } catch (error) {
        return unreachable(found.organization, error);
      }
      const token = randomToken();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const now = deps.now();
      await insertSsoAttempt(
        deps.db,
        {
          tokenHash: hashAttemptToken(token),
          organizationId: found.organization.id,
          state,
          nonce,
          codeVerifier,
          expiresAt: new Date(now.getTime() + SSO_ATTEMPT_TTL_MS),
        },
        now,
      );
      const location = oidc.buildAuthorizationUrl(provider, {
        redirect_uri: redirectUri,
        scope: "openid email",
        response_type: "code",
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
      });
      return { ok: true, location: location.href, token };
    },

    /** Drops the sign-in under way that the browser's cookie names, unused. */
    async discard(token: string | undefined): Promise<void> {
      if (token) await takeSsoAttempt(deps.db, hashAttemptToken(token));
    },

    /**
     * Finishes a sign-in from the provider's redirect (`search` is its query string): the
     * person to sign in, a member of the organization whose provider proved their address.
     */
    async finish(
      token: string | undefined,
      search: string,
      clientIp: string,
    ): Promise<{ ok: true; person: PersonRow; organization: OrganizationRow } | SsoRefusal> {
      if (await throttled(clientIp)) return THROTTLED;
      const attempt = token ? await takeSsoAttempt(deps.db, hashAttemptToken(token)) : null;
      if (!attempt || attempt.expiresAt.getTime() <= deps.now().getTime()) {
        return refuse(
          400,
          "no_sign_in_under_way",
          "This sign-in has expired or was already used, or it was started in another browser. Start again.",
        );
      }
      const organization = await findOrganization(deps.db, attempt.organizationId);
      const refused = async (outcome: SsoRefusal, who?: { email: string; personId?: string }) => {
        const actor = who ? `sso:${who.email}` : "sso";
        const action = `sso.sign_in_refused:${outcome.reason}`;
        await audit(deps.db, organization.id, action, who?.personId ?? null, actor);
        return outcome;
      };

      const callback = new URL(`${redirectUri}${search}`);
      if (callback.searchParams.get("state") !== attempt.state) {
        return refused(
          refuse(
            400,
            "state_mismatch",
            "This answer does not belong to the sign-in started in this browser (wrong state). Start again.",
          ),
        );
      }
      const config = await findSsoConfig(deps.db, organization.id);
      if (!config?.enabled) return refused(NOT_SET_UP);

      let claims: Record<string, unknown> | undefined;
      try {
        const provider = await providerOf(config);
        const tokens = await oidc.authorizationCodeGrant(provider, callback, {
          pkceCodeVerifier: attempt.codeVerifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims()!;
        claims = idToken;
        // A provider may keep the email scope's claims for its UserInfo endpoint (OpenID
        // Connect Core 5.4); its answer must then be about the ID token's subject.
        if (idToken.email === undefined) {
          claims = await oidc.fetchUserInfo(provider, tokens.access_token, idToken.sub);
        }
      } catch (error) {
        return refused(refusalOf(error, organization));
      }
      const email = typeof claims?.email === "string" ? claims.email.trim().toLowerCase() : "";
      if (!email.includes("@")) {
        return refused(
          refuse(
            403,
            "no_email",
            "Your organization's provider did not tell us your email address.",
          ),
        );
      }
      const person = await findPersonByEmail(deps.db, email);
      const who = { email, personId: person?.id };
      if (claims?.email_verified !== true) {
        return refused(
          refuse(
            403,
            "email_unverified",
            "Your organization's provider has not verified this email address, so it cannot sign you in here.",
          ),
          who,
        );
      }
      if (!config.allowedDomains.includes(domainOfEmail(email))) {
        return refused(
          refuse(
            403,
            "domain_not_allowed",
            `${email} is outside the email domains allowed for ${organization.name}'s single sign-on.`,
          ),
          who,
        );
      }
      const verified = await verifiedDomainsOf(deps.db, organization.id);
      if (!verified.some((row) => row.domain === domainOfEmail(email))) {
        return refused(
          refuse(
            403,
            "domain_unverified",
            `The domain of ${email} is not verified for ${organization.name}'s single sign-on yet. Sign in with an emailed code instead.`,
          ),
          who,
        );
      }
      const memberships = person ? await membershipsOfPerson(deps.db, person.id) : [];
      if (!person || !memberships.some((row) => row.organizationId === organization.id)) {
        return refused(
          refuse(
            403,
            "not_a_member",
            `${email} is not a member of ${organization.name}. Ask an owner of ${organization.name} to add you, then sign in again.`,
          ),
          who,
        );
      }
      // An organization's provider vouches for its own people only: never for staff, nor for
      // anyone who also belongs elsewhere (their other organizations trust emailed codes).
      if (memberships.some((row) => row.organizationId !== organization.id)) {
        return refused(
          refuse(
            403,
            "other_memberships",
            `${email} also belongs to other organizations, so ${organization.name}'s single sign-on cannot sign you in. Sign in with an emailed code instead.`,
          ),
          who,
        );
      }
      await audit(deps.db, organization.id, "sso.signed_in", person.id, `person:${person.id}`);
      return { ok: true, person, organization };
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;

/** The claim an ID token check failed on ("nonce", "iss", "aud"...), if that was the failure. */
function failedClaim(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const claim = (current as { claim?: unknown }).claim;
    if (typeof claim === "string") return claim;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function refusalOf(error: unknown, organization: OrganizationRow): SsoRefusal {
  if (error instanceof oidc.AuthorizationResponseError) {
    return refuse(
      400,
      "provider_refused",
      "Your organization's provider did not sign you in. Start again.",
    );
  }
  const claim = failedClaim(error);
  if (claim === "nonce") {
    return refuse(
      400,
      "nonce_mismatch",
      "The provider's answer was not issued for this sign-in (wrong nonce). Start again.",
    );
  }
  if (error instanceof oidc.ClientError || error instanceof oidc.ResponseBodyError) {
    log.warn("sso answer refused", {
      organization_id: organization.id,
      error: error.message,
      claim,
    });
    return refuse(
      400,
      "invalid_answer",
      "The provider's answer could not be verified. Start again.",
    );
  }
  log.warn("sso provider failed", {
    organization_id: organization.id,
    error: error instanceof Error ? error.message : String(error),
  });
  return refuse(
    502,
    "provider_unreachable",
    "Your organization's sign-in provider did not answer as expected. Try again later.",
  );
}
