import type { Queryable } from "@newsroom/shared/db/index";
import { OAUTH_GRANT_TYPES, type OAuthGrantType, oauthClients } from "@newsroom/shared/db/schema";
import { ApiError, type FieldError } from "@newsroom/shared/errors";
import { newId } from "@newsroom/shared/ids";
import { iso } from "@newsroom/shared/records";
import { and, asc, eq } from "drizzle-orm";
import { audit, personActor } from "../audit.ts";
import { findOrganization } from "../resolve.ts";
import { newClientId } from "./secrets.ts";

export type OAuthClientRow = typeof oauthClients.$inferSelect;

export const MAX_CLIENTS_PER_ORGANIZATION = 50;
export const MAX_REDIRECT_URIS = 10;

export interface OAuthClientInput {
  name: string;
  redirect_uris?: string[];
  grant_types: string[];
}

/**
 * Registers a public client for the organization (its owners and admins do: the caller checks).
 * `createdBy` is the person who did, null for the operator's internal API.
 */
export async function registerOAuthClient(
  db: Queryable,
  orgIdOrSlug: string,
  input: OAuthClientInput,
  createdBy: string | null,
): Promise<OAuthClientRow> {
  const organization = await findOrganization(db, orgIdOrSlug);
  const { name, redirectUris, grantTypes } = checkedClientInput(input);
  const existing = await listOAuthClients(db, organization.id);
  if (existing.length >= MAX_CLIENTS_PER_ORGANIZATION) {
    throw new ApiError(
      "limit_reached",
      `An organization may register at most ${MAX_CLIENTS_PER_ORGANIZATION} applications.`,
    );
  }
  const [row] = await db
    .insert(oauthClients)
    .values({
      id: newId(),
      organizationId: organization.id,
      name,
      clientId: newClientId(),
      redirectUris,
      grantTypes,
      createdBy,
    })
    .returning();
  await audit(
    db,
    organization.id,
    "oauth_client.create",
    row!.id,
    createdBy ? personActor(createdBy) : "admin",
  );
  return row!;
}

/** The organization's registered applications, oldest first. */
export async function listOAuthClients(
  db: Queryable,
  organizationId: string,
): Promise<OAuthClientRow[]> {
  return db
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.organizationId, organizationId))
    .orderBy(asc(oauthClients.createdAt), asc(oauthClients.id));
}

/** The application a request names by its public `client_id`, or null. */
export async function findOAuthClient(
  db: Queryable,
  clientId: string,
): Promise<OAuthClientRow | null> {
  if (!clientId || clientId.length > 100) return null;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId));
  return row ?? null;
}

/** One application of the organization by its record id, or null. */
export async function findOrganizationOAuthClient(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<OAuthClientRow | null> {
  const [row] = await db
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.organizationId, organizationId), eq(oauthClients.id, id)));
  return row ?? null;
}

/** The OAuthClient record: public, so no secret to leave out. */
export function oauthClientOut(row: OAuthClientRow) {
  return {
    object: "oauth_client" as const,
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    client_id: row.clientId,
    redirect_uris: row.redirectUris,
    grant_types: row.grantTypes,
    created_at: iso(row.createdAt),
  };
}

function checkedClientInput(input: OAuthClientInput): {
  name: string;
  redirectUris: string[];
  grantTypes: OAuthGrantType[];
} {
  const fields: FieldError[] = [];
  const name = (input.name ?? "").trim();
  if (name.length < 1 || name.length > 100) {
    fields.push({
      field: "name",
      reason: "invalid",
      message: "Give the application a name of 1 to 100 characters.",
    });
  }
  const grantTypes = [...new Set(input.grant_types ?? [])];
  if (grantTypes.length === 0) {
    fields.push({
      field: "grant_types",
      reason: "required",
      message: "Choose at least one grant.",
    });
  }
  grantTypes.forEach((grant, index) => {
    if (!(OAUTH_GRANT_TYPES as readonly string[]).includes(grant)) {
      fields.push({
        field: `grant_types.${index}`,
        reason: "invalid",
        message: `A grant is one of ${OAUTH_GRANT_TYPES.join(", ")}.`,
      });
    }
  });
  const redirectUris = [...new Set((input.redirect_uris ?? []).map((uri) => uri.trim()))];
  if (grantTypes.includes("authorization_code") && redirectUris.length === 0) {
    fields.push({
      field: "redirect_uris",
      reason: "required",
      message: "The authorization code grant needs at least one redirect URI.",
    });
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    fields.push({
      field: "redirect_uris",
      reason: "too_many",
      message: `At most ${MAX_REDIRECT_URIS} redirect URIs.`,
    });
  }
  redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem)
      fields.push({ field: `redirect_uris.${index}`, reason: "invalid", message: problem });
  });
  if (fields.length > 0) {
    throw new ApiError("validation_failed", "The application has invalid fields.", { fields });
  }
  return { name, redirectUris, grantTypes: grantTypes as OAuthGrantType[] };
}

/**
 * Why a redirect URI cannot be registered, or null: an absolute https URL without a fragment,
 * or http on the loopback interface for native applications (RFC 8252 §7.3).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 500) return "A redirect URI has at most 500 characters.";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "A redirect URI is an absolute URL.";
  }
  if (url.hash || uri.includes("#")) return "A redirect URI has no fragment.";
  if (url.username || url.password) return "A redirect URI carries no credentials.";
  const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && loopback) return null;
  return "A redirect URI uses https (http only on the loopback address).";
}
