import { createHash } from "node:crypto";
import type { Queryable } from "@newsroom/shared/db/index";
import { workspacePeople, workspaceSessions } from "@newsroom/shared/db/schema";
import { newId, randomToken } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";
import type { PersonRow } from "../members/store.ts";

export type SessionRow = typeof workspaceSessions.$inferSelect;

/** A session ends after 12 hours without use, and after 7 days whatever its use. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_ABSOLUTE_MS = 7 * 86_400_000;
/** `last_seen_at` is written at most this often, not on every request. */
const TOUCH_EVERY_MS = 60_000;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Only the SHA-256 of a session token is stored. */
export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * A new session right after the person proved a sign-in; the token goes into the cookie only.
 * `ssoOrganizationId`: single sign-on proved it, for that organization only.
 */
export async function startSession(
  db: Queryable,
  personId: string,
  now: Date,
  options: { ssoOrganizationId?: string } = {},
): Promise<{ token: string; session: SessionRow }> {
  const token = randomToken();
  const [session] = await db
    .insert(workspaceSessions)
    .values({
      id: newId(),
      personId,
      tokenHash: hashSessionToken(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      freshAt: now,
      ssoOrganizationId: options.ssoOrganizationId ?? null,
    })
    .returning();
  return { token, session: session! };
}

/** The live session a cookie's token names, with its person; an expired one is deleted. */
export async function resolveSession(
  db: Queryable,
  token: string | undefined,
  now: Date,
): Promise<{ session: SessionRow; person: PersonRow } | null> {
  if (!token || !TOKEN_SHAPE.test(token)) return null;
  const [row] = await db
    .select({ session: workspaceSessions, person: workspacePeople })
    .from(workspaceSessions)
    .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceSessions.personId))
    .where(eq(workspaceSessions.tokenHash, hashSessionToken(token)));
  if (!row) return null;
  const { session } = row;
  const idleSince = now.getTime() - session.lastSeenAt.getTime();
  if (idleSince >= SESSION_IDLE_MS || now.getTime() >= session.expiresAt.getTime()) {
    await endSession(db, session.id);
    return null;
  }
  if (idleSince >= TOUCH_EVERY_MS) {
    await db
      .update(workspaceSessions)
      .set({ lastSeenAt: now })
      .where(eq(workspaceSessions.id, session.id));
    session.lastSeenAt = now;
  }
  return row;
}

/**
 * The person proved a sign-in again on this session with an emailed code: actions that need a
 * recent sign-in are open for the next 12 hours, and a session single sign-on opened for one
 * organization now reaches all of the person's.
 */
export async function markSessionFresh(db: Queryable, sessionId: string, now: Date): Promise<void> {
  await db
    .update(workspaceSessions)
    .set({ freshAt: now, ssoOrganizationId: null })
    .where(eq(workspaceSessions.id, sessionId));
}

export async function endSession(db: Queryable, sessionId: string): Promise<void> {
  await db.delete(workspaceSessions).where(eq(workspaceSessions.id, sessionId));
}

/** "Sign out everywhere": every session of the person. */
export async function endAllSessions(db: Queryable, personId: string): Promise<void> {
  await db.delete(workspaceSessions).where(eq(workspaceSessions.personId, personId));
}
