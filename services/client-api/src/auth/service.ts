import {
  acceptedKeyEnvironment,
  hashKey,
  type KeyScope,
  parseKey,
  sameHash,
} from "@newsroom/shared/api-keys";
import type { PresentedKey } from "@newsroom/shared/presented-key";
import type { KeyUsage } from "./key-usage.ts";
import type { StoredKey } from "./store.ts";

/** Reads the key record whose SHA-256 is given, with its organization, from the database. */
export type FindKey = (keyHash: string) => Promise<StoredKey | null>;

/** Who is calling: the key's organization, as read on this request. */
export interface Caller {
  keyId: string;
  organizationId: string;
  organizationName: string;
  /** Until the newsroom runs, stories, approvals and feeds are empty. */
  newsroomRunning: boolean;
  /** The organization's data version, read with the key: cached answers are keyed by it. */
  dataVersion: number;
  scopes: string[];
}

export type KeyFailure = "missing_api_key" | "invalid_api_key" | "wrong_environment";

export type KeyCheck =
  | { ok: true; caller: Caller }
  | { ok: false; code: KeyFailure; message?: string }
  | { ok: false; code: "insufficient_scope"; scope: KeyScope };

export const QUERY_KEY_SCOPES_MESSAGE =
  "A key in a feed URL (?key=) must have feed:read as its only scope, and this key has others. Give feed readers a key with feed:read alone, or send this key in the Authorization header.";

/** A key in a URL is allowed only when reading the feed is all it can do. */
function onlyReadsFeeds(scopes: string[]): boolean {
  return scopes.length === 1 && scopes[0] === "feed:read";
}

/**
 * Checks a presented key against its record: shape, environment, SHA-256 lookup with a
 * constant-time comparison, revocation, expiry (against `now`), where it was given, then the
 * scope, all on the row read for this request (records are never cached). Outcomes are values; only a database failure throws.
 */
export async function verifyApiKey(
  deps: {
    findKey: FindKey;
    serviceEnv: "production" | "sandbox" | "development";
    keyUsage: KeyUsage;
  },
  credential: PresentedKey,
  scope: KeyScope,
  now = new Date(),
): Promise<KeyCheck> {
  if (!credential.ok) return { ok: false, code: credential.code };
  const parsed = parseKey(credential.key);
  if (!parsed) return { ok: false, code: "invalid_api_key" };
  if (parsed.environment !== acceptedKeyEnvironment(deps.serviceEnv)) {
    return { ok: false, code: "wrong_environment" };
  }
  const hash = hashKey(credential.key);
  const stored = await deps.findKey(hash);
  if (
    !stored ||
    !sameHash(stored.keyHash, hash) ||
    stored.environment !== parsed.environment ||
    stored.revokedAt !== null ||
    stored.expiresAt.getTime() <= now.getTime()
  ) {
    return { ok: false, code: "invalid_api_key" };
  }
  // Said only to the holder of a working key: the key itself is fine, its place is not.
  if (credential.source === "query" && !onlyReadsFeeds(stored.scopes)) {
    return { ok: false, code: "invalid_api_key", message: QUERY_KEY_SCOPES_MESSAGE };
  }
  deps.keyUsage.record(stored.id, stored.lastUsedAt, now);
  if (!stored.scopes.includes(scope)) return { ok: false, code: "insufficient_scope", scope };
  return {
    ok: true,
    caller: {
      keyId: stored.id,
      organizationId: stored.organizationId,
      organizationName: stored.organizationName,
      newsroomRunning: stored.newsroomRunning,
      dataVersion: stored.dataVersion,
      scopes: stored.scopes,
    },
  };
}
