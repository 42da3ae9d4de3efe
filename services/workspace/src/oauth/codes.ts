import type { Db } from "@newsroom/shared/db/index";
import { oauthAuthorizationCodes } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { eq } from "drizzle-orm";
import { approverRole } from "./access.ts";
import type { OAuthClientRow } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import {
  APPROVE_SCOPE,
  AUTHORIZATION_CODE_PREFIX,
  AUTHORIZATION_CODE_SECONDS,
  hashSecret,
  isCodeVerifier,
  isS256Challenge,
  newSecret,
  s256Challenge,
} from "./secrets.ts";
import { createGrant, issueTokenPair, revokeFamily, type TokenAnswer } from "./tokens.ts";

export interface AuthorizationCodeInput {
  client: OAuthClientRow;
  organizationId: string;
  personId: string;
  /** Exactly one of the client's registered redirect URIs. */
  redirectUri: string;
  /** The PKCE challenge; the method is S256, always. */
  codeChallenge: string;
  scope?: string;
}

/**
 * The consent page's answer when a person allows an application: a code of ten minutes, single
 * use, bound to the client, the exact redirect URI, the PKCE challenge, the person and the
 * organization. The person must be able to decide approvals there.
 */
export async function issueAuthorizationCode(
  db: Db,
  input: AuthorizationCodeInput,
  now: Date,
): Promise<string> {
  const { client } = input;
  if (!client.grantTypes.includes("authorization_code")) {
    throw new ApiError("forbidden", "This application may not use the authorization code grant.");
  }
  if (!client.redirectUris.includes(input.redirectUri)) {
    throw new ApiError(
      "validation_failed",
      "The redirect URI is not one the application registered.",
      {
        fields: [{ field: "redirect_uri", reason: "not_registered" }],
      },
    );
  }
  if (!isS256Challenge(input.codeChallenge)) {
    throw new ApiError("validation_failed", "The code challenge is not an S256 challenge.", {
      fields: [{ field: "code_challenge", reason: "invalid" }],
    });
  }
  if (!(await approverRole(db, input.organizationId, input.personId))) {
    throw new ApiError("forbidden", "You may not decide approvals in this organization.");
  }
  const code = newSecret(AUTHORIZATION_CODE_PREFIX);
  await db.insert(oauthAuthorizationCodes).values({
    codeHash: code.hash,
    clientId: client.id,
    organizationId: input.organizationId,
    personId: input.personId,
    redirectUri: input.redirectUri,
    codeChallenge: input.codeChallenge,
    scope: input.scope ?? APPROVE_SCOPE,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_SECONDS * 1000),
    createdAt: now,
  });
  return code.secret;
}

/**
 * The authorization code grant: the code is the client's, unexpired and unused, the redirect URI
 * the very one it was issued for, and the verifier's S256 its challenge. A code used twice
 * revokes the tokens its first use issued (RFC 6749 §4.1.2).
 */
export async function exchangeAuthorizationCode(
  db: Db,
  input: { client: OAuthClientRow; code: string; redirectUri: string; codeVerifier: string },
  now: Date,
): Promise<TokenAnswer> {
  const outcome = await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.codeHash, hashSecret(input.code)))
      .for("update");
    if (!row || row.clientId !== input.client.id) {
      return { error: "The authorization code is unknown." } as const;
    }
    if (row.usedAt) {
      if (row.grantId) await revokeFamily(tx, row.grantId, now);
      return { error: "The authorization code was used before." } as const;
    }
    if (row.expiresAt <= now) return { error: "The authorization code expired." } as const;
    if (row.redirectUri !== input.redirectUri) {
      return { error: "The redirect_uri differs from the one the code was issued for." } as const;
    }
    if (
      !isCodeVerifier(input.codeVerifier) ||
      s256Challenge(input.codeVerifier) !== row.codeChallenge
    ) {
      return { error: "The code_verifier does not match the code challenge." } as const;
    }
    if (!(await approverRole(tx, row.organizationId, row.personId))) {
      return { error: "The person who allowed the application may no longer approve." } as const;
    }
    const grant = await createGrant(
      tx,
      {
        organizationId: row.organizationId,
        clientId: row.clientId,
        personId: row.personId,
        scope: row.scope,
      },
      now,
    );
    await tx
      .update(oauthAuthorizationCodes)
      .set({ usedAt: now, grantId: grant.id })
      .where(eq(oauthAuthorizationCodes.codeHash, row.codeHash));
    return { answer: await issueTokenPair(tx, grant, now) } as const;
  });
  if (outcome.answer) return outcome.answer;
  throw new OAuthError("invalid_grant", outcome.error ?? "The grant is invalid.");
}
