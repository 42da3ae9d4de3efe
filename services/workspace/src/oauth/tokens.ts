import type { Db, Queryable } from "@newsroom/shared/db/index";
import {
  type MemberRole,
  oauthClients,
  oauthGrants,
  oauthTokens,
  organizations,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { iso } from "@newsroom/shared/records";
import { and, desc, eq, isNull } from "drizzle-orm";
import { audit, personActor } from "../audit.ts";
import { approverRole } from "./access.ts";
import type { OAuthClientRow } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_SECONDS,
  hashSecret,
  newSecret,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_SECONDS,
} from "./secrets.ts";

export type OAuthGrantRow = typeof oauthGrants.$inferSelect;

/** The token endpoint's success answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A person's consent to an application in one organization: the family of its tokens. */
export async function createGrant(
  tx: Queryable,
  input: { organizationId: string; clientId: string; personId: string; scope: string },
  now: Date,
): Promise<OAuthGrantRow> {
  const [grant] = await tx
    .insert(oauthGrants)
    .values({ id: newId(), ...input, createdAt: now })
    .returning();
  await audit(
    tx,
    input.organizationId,
    "oauth_grant.create",
    grant!.id,
    personActor(input.personId),
  );
  return grant!;
}

/** A new access token (one hour) and refresh token in the grant's family. */
export async function issueTokenPair(
  tx: Queryable,
  grant: OAuthGrantRow,
  now: Date,
): Promise<TokenAnswer> {
  const access = newSecret(ACCESS_TOKEN_PREFIX);
  const refresh = newSecret(REFRESH_TOKEN_PREFIX);
  await tx.insert(oauthTokens).values([
    {
      tokenHash: access.hash,
      kind: "access",
      grantId: grant.id,
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
      createdAt: now,
    },
    {
      tokenHash: refresh.hash,
      kind: "refresh",
      grantId: grant.id,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000),
      createdAt: now,
    },
  ]);
  return {
    access_token: access.secret,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refresh.secret,
    scope: grant.scope,
  };
}

/** Ends a grant and every token of its family. */
export async function revokeFamily(tx: Queryable, grantId: string, now: Date): Promise<void> {
  await tx
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
  await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
}

/**
 * The refresh token grant: the token is spent and a new pair issued in its family. A token used
 * a second time (stolen, or replayed) revokes the whole family: the grant ends and the person
 * allows the application again.
 */
export async function refreshTokens(
  db: Db,
  client: OAuthClientRow,
  refreshToken: string,
  now: Date,
): Promise<TokenAnswer> {
  const outcome = await db.transaction(async (tx) => {
    const [found] = await tx
      .select({ token: oauthTokens, grant: oauthGrants })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
      .where(eq(oauthTokens.tokenHash, hashSecret(refreshToken)))
      .for("update");
    if (found?.token.kind !== "refresh" || found.grant.clientId !== client.id) {
      return { error: "The refresh token is unknown." } as const;
    }
    const { token, grant } = found;
    if (grant.revokedAt || token.revokedAt) {
      return { error: "The refresh token was revoked." } as const;
    }
    if (token.usedAt) {
      await revokeFamily(tx, grant.id, now);
      await audit(tx, grant.organizationId, "oauth_grant.reuse_revoked", grant.id, "system");
      return {
        error: "The refresh token was used before: every token of this grant is revoked.",
      } as const;
    }
    if (token.expiresAt <= now) return { error: "The refresh token expired." } as const;
    if (!(await approverRole(tx, grant.organizationId, grant.personId))) {
      return { error: "The person who allowed the application may no longer approve." } as const;
    }
    await tx
      .update(oauthTokens)
      .set({ usedAt: now })
      .where(eq(oauthTokens.tokenHash, token.tokenHash));
    await tx.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, grant.id));
    return { answer: await issueTokenPair(tx, grant, now) } as const;
  });
  if (outcome.answer) return outcome.answer;
  throw new OAuthError("invalid_grant", outcome.error ?? "The grant is invalid.");
}

/**
 * Token revocation (RFC 7009): a refresh token ends its family, an access token itself. A token
 * that is unknown, or another application's, changes nothing and is answered the same.
 */
export async function revokeToken(
  db: Db,
  client: OAuthClientRow,
  token: string,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [found] = await tx
      .select({ token: oauthTokens, grant: oauthGrants })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
      .where(eq(oauthTokens.tokenHash, hashSecret(token)));
    if (!found || found.grant.clientId !== client.id) return;
    if (found.token.kind === "refresh") {
      await revokeFamily(tx, found.grant.id, now);
    } else {
      await tx
        .update(oauthTokens)
        .set({ revokedAt: now })
        .where(
          and(eq(oauthTokens.tokenHash, found.token.tokenHash), isNull(oauthTokens.revokedAt)),
        );
    }
  });
}

/** Who an access token speaks for, checked now: the grant, the application and the role. */
export interface TokenHolder {
  grant: OAuthGrantRow;
  client: OAuthClientRow;
  role: MemberRole;
}

export type AccessCheck =
  | { ok: true; holder: TokenHolder }
  | { ok: false; reason: "invalid_token" | "not_approver" };

/**
 * Checks an access token: known, of the access kind, unexpired, unrevoked, in a live grant; and
 * the person behind it a member who may decide approvals in the grant's organization *now*.
 */
export async function checkAccessToken(db: Db, token: string, now: Date): Promise<AccessCheck> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return { ok: false, reason: "invalid_token" };
  const [found] = await db
    .select({ token: oauthTokens, grant: oauthGrants, client: oauthClients })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(eq(oauthTokens.tokenHash, hashSecret(token)));
  if (
    found?.token.kind !== "access" ||
    found.token.revokedAt ||
    found.grant.revokedAt ||
    found.token.expiresAt <= now
  ) {
    return { ok: false, reason: "invalid_token" };
  }
  const role = await approverRole(db, found.grant.organizationId, found.grant.personId);
  if (!role) return { ok: false, reason: "not_approver" };
  await db.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, found.grant.id));
  return { ok: true, holder: { grant: found.grant, client: found.client, role } };
}

/** The applications a person allowed and has not revoked: newest first. */
export async function grantsOfPerson(db: Queryable, personId: string) {
  return db
    .select({
      id: oauthGrants.id,
      scope: oauthGrants.scope,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
      clientName: oauthClients.name,
      clientId: oauthClients.clientId,
      organizationId: organizations.id,
      organizationSlug: organizations.slug,
      organizationName: organizations.name,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(organizations, eq(organizations.id, oauthGrants.organizationId))
    .where(and(eq(oauthGrants.personId, personId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
}

export type PersonGrant = Awaited<ReturnType<typeof grantsOfPerson>>[number];

/** The OAuthGrant record of a person's allowed application. */
export function personGrantOut(grant: PersonGrant) {
  return {
    object: "oauth_grant" as const,
    id: grant.id,
    scope: grant.scope,
    client: { name: grant.clientName, client_id: grant.clientId },
    organization: {
      id: grant.organizationId,
      slug: grant.organizationSlug,
      name: grant.organizationName,
    },
    created_at: iso(grant.createdAt),
    last_used_at: grant.lastUsedAt ? iso(grant.lastUsedAt) : null,
  };
}

/**
 * The person revokes an application they allowed: its grant and every token of the family.
 * False when the grant is not theirs or was revoked already.
 */
export async function revokeGrant(
  db: Db,
  personId: string,
  grantId: string,
  now: Date,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [grant] = await tx
      .select()
      .from(oauthGrants)
      .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.personId, personId)))
      .for("update");
    if (!grant || grant.revokedAt) return false;
    await revokeFamily(tx, grant.id, now);
    await audit(tx, grant.organizationId, "oauth_grant.revoke", grant.id, personActor(personId));
    return true;
  });
}
