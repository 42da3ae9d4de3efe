import {
  CMS_KINDS,
  type CmsConnectionCreateIn,
  type CmsConnectionOut,
  type CmsConnectionUpdateIn,
  type CmsKind,
  MAX_CMS_CONNECTIONS_PER_ORGANIZATION,
} from "@newsroom/shared/cms-connection-commands";
import type { InsecureTargets } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { cmsConnections } from "@newsroom/shared/db/schema";
import { ApiError, type FieldError, validationFailed } from "@newsroom/shared/errors";
import { isUuid, newId } from "@newsroom/shared/ids";
import { open, seal } from "@newsroom/shared/secret-box";
import { and, asc, count, eq, sql } from "drizzle-orm";
import { checkEndpointUrl } from "../endpoints/url-rules.ts";
import type { CmsConnector } from "./connector.ts";
import { GhostConnector } from "./ghost/connector.ts";
import { type CmsHttpOptions, cmsFetch } from "./http.ts";
import { WordPressConnector, type WordPressCredential } from "./wordpress/connector.ts";

export type CmsConnectionRow = typeof cmsConnections.$inferSelect;

export interface CmsConnectionDeps {
  db: Db;
  secretsKey: Buffer;
  /** Which URLs are accepted: the webhook endpoints' rules and switch. */
  allowInsecureTargets: InsecureTargets;
}

/** The Ghost Admin API key's shape: a 24-hex id, a colon, a 64-hex secret. */
const GHOST_KEY = /^[0-9a-f]{24}:[0-9a-f]{64}$/i;

export function cmsConnectionRecord(row: CmsConnectionRow): CmsConnectionOut {
  return {
    object: "cms_connection",
    id: row.id,
    kind: row.kind,
    url: row.url,
    status: row.status,
    enabled: row.enabled,
    unpublish_mode: row.unpublishMode,
    last_error: row.lastError,
    last_error_at: row.lastErrorAt?.toISOString() ?? null,
    consecutive_failures: row.consecutiveFailures,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The create command's fields, each checked: the kind, the URL by the webhook endpoints' rules
 * (public https hosts only, but for the development switch), and the kind's credential.
 */
function checkCreate(
  input: CmsConnectionCreateIn,
  allowInsecureTargets: InsecureTargets,
): { kind: CmsKind; url: string; credential: Record<string, string> } {
  const errors: FieldError[] = [];
  const kind = CMS_KINDS.find((k) => k === input.kind);
  if (!kind) {
    errors.push({ field: "kind", reason: "invalid", message: "Either wordpress or ghost." });
  }
  const url = (input.url ?? "").trim();
  if (url === "") {
    errors.push({ field: "url", reason: "required", message: "The site's address is required." });
  } else {
    const bad = checkEndpointUrl(url, { allowInsecureTargets });
    if (bad) errors.push(bad);
  }
  const credential: Record<string, string> = {};
  const required = (field: keyof CmsConnectionCreateIn, what: string) => {
    const value = (input[field] as string | undefined)?.trim() ?? "";
    if (value === "") errors.push({ field, reason: "required", message: `${what} is required.` });
    credential[field] = value;
    return value;
  };
  if (kind === "wordpress") {
    required("username", "The WordPress user name");
    const password = required("application_password", "An application password");
    if (password !== "" && password.replace(/\s+/g, "").length < 16) {
      errors.push({
        field: "application_password",
        reason: "invalid",
        message:
          "An application password is 24 letters and digits, made on the user's profile page; the user's own password does not work here.",
      });
    }
  } else if (kind === "ghost") {
    const key = required("admin_api_key", "The Admin API key");
    if (key !== "" && !GHOST_KEY.test(key)) {
      errors.push({
        field: "admin_api_key",
        reason: "invalid",
        message: "An Admin API key looks like {24 hex digits}:{64 hex digits}.",
      });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { kind: kind!, url: url.replace(/\/+$/, ""), credential };
}

/** Adds a connection; its credential is sealed and never shown again. */
export async function createCmsConnection(
  deps: CmsConnectionDeps,
  organizationId: string,
  input: CmsConnectionCreateIn,
): Promise<CmsConnectionRow> {
  const { kind, url, credential } = checkCreate(input, deps.allowInsecureTargets);
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cms:${organizationId}`}))`);
    const [existing] = await tx
      .select({ n: count() })
      .from(cmsConnections)
      .where(eq(cmsConnections.organizationId, organizationId));
    if ((existing?.n ?? 0) >= MAX_CMS_CONNECTIONS_PER_ORGANIZATION) {
      throw new ApiError(
        "limit_reached",
        `An organization may have at most ${MAX_CMS_CONNECTIONS_PER_ORGANIZATION} CMS connections.`,
      );
    }
    const [row] = await tx
      .insert(cmsConnections)
      .values({
        id: newId(),
        organizationId,
        kind,
        url,
        credentialCiphertext: seal(JSON.stringify(credential), deps.secretsKey),
        unpublishMode: input.unpublish_mode ?? "draft",
        enabled: input.enabled ?? true,
      })
      .returning();
    return row!;
  });
}

export function listCmsConnections(db: Db, organizationId: string): Promise<CmsConnectionRow[]> {
  return db
    .select()
    .from(cmsConnections)
    .where(eq(cmsConnections.organizationId, organizationId))
    .orderBy(asc(cmsConnections.createdAt), asc(cmsConnections.id));
}

export async function findCmsConnection(
  db: Db,
  organizationId: string,
  id: string,
): Promise<CmsConnectionRow> {
  const [row] = isUuid(id)
    ? await db
        .select()
        .from(cmsConnections)
        .where(and(eq(cmsConnections.organizationId, organizationId), eq(cmsConnections.id, id)))
    : [];
  if (!row) throw new ApiError("not_found", "No such CMS connection.");
  return row;
}

export async function updateCmsConnection(
  db: Db,
  organizationId: string,
  id: string,
  input: CmsConnectionUpdateIn,
): Promise<CmsConnectionRow> {
  if (input.enabled === undefined && input.unpublish_mode === undefined) {
    throw validationFailed([
      { field: "enabled", reason: "required", message: "Nothing to change." },
    ]);
  }
  await findCmsConnection(db, organizationId, id);
  const [row] = await db
    .update(cmsConnections)
    .set({
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
      ...(input.enabled === true ? { consecutiveFailures: 0, status: "unchecked" as const } : {}),
      ...(input.unpublish_mode === undefined ? {} : { unpublishMode: input.unpublish_mode }),
      updatedAt: new Date(),
    })
    .where(and(eq(cmsConnections.organizationId, organizationId), eq(cmsConnections.id, id)))
    .returning();
  return row!;
}

/** Deletes a connection with its post mappings, images and writes (the posts stay in the CMS). */
export async function deleteCmsConnection(
  db: Db,
  organizationId: string,
  id: string,
): Promise<CmsConnectionRow> {
  const row = await findCmsConnection(db, organizationId, id);
  await db
    .delete(cmsConnections)
    .where(and(eq(cmsConnections.organizationId, organizationId), eq(cmsConnections.id, id)));
  return row;
}

/** The connector of a connection's kind, with its credential opened. */
export function connectorOf(
  row: CmsConnectionRow,
  secretsKey: Buffer,
  http: CmsHttpOptions,
): CmsConnector {
  const credential = JSON.parse(open(row.credentialCiphertext, secretsKey)) as Record<
    string,
    string
  >;
  if (row.kind === "wordpress") {
    return new WordPressConnector(row.url, credential as unknown as WordPressCredential, http);
  }
  return ghostConnector(row.url, credential, http);
}

/** Ghost through its Admin API, every request through the same target guard as WordPress's. */
function ghostConnector(
  url: string,
  credential: Record<string, string>,
  http: CmsHttpOptions,
): CmsConnector {
  return new GhostConnector({
    url,
    adminApiKey: credential.admin_api_key ?? "",
    fetch: (target, init) =>
      cmsFetch(
        target,
        {
          method: init.method ?? "GET",
          headers: init.headers,
          body: init.body,
          signal: init.signal,
        },
        http,
      ),
  });
}

/** Records what a check found: `working`, or the problem in plain words. */
export async function recordCheck(
  db: Db,
  row: CmsConnectionRow,
  result: { ok: true } | { ok: false; message: string },
): Promise<CmsConnectionRow> {
  const [updated] = await db
    .update(cmsConnections)
    .set(
      result.ok
        ? { status: "working", lastError: null, lastErrorAt: null, updatedAt: new Date() }
        : { lastError: result.message, lastErrorAt: new Date(), updatedAt: new Date() },
    )
    .where(eq(cmsConnections.id, row.id))
    .returning();
  return updated ?? row;
}
