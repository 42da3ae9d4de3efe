import { createHash } from "node:crypto";
import { addressLimitKey } from "@newsroom/shared/address-limit-key";
import { sameHash } from "@newsroom/shared/api-keys";
import type { Db } from "@newsroom/shared/db/index";
import {
  workspaceMemberships,
  workspacePeople,
  workspaceSignInCodes,
} from "@newsroom/shared/db/schema";
import { log } from "@newsroom/shared/log";
import type { Mailer } from "@newsroom/shared/mailer";
import {
  checkLimit,
  checkLimits,
  peekLimit,
  type RateLimitStore,
} from "@newsroom/shared/rate-limit";
import { and, eq } from "drizzle-orm";
import { findPersonByEmail, normalizeEmail, type PersonRow } from "../members/store.ts";
import { afterAnswerQueue } from "./after-answer.ts";
import { CODE_SHAPE, hashSignInCode, newSignInCode, signInCodeKey } from "./codes.ts";
import { signInCodeEmail, signInPausedEmail } from "./email.ts";

/** A code lives 10 minutes; five wrong tries burn it. */
export const CODE_TTL_MS = 10 * 60_000;
export const MAX_WRONG_TRIES = 5;

/** Throttles, per fixed window of 15 minutes or of a day. */
const WINDOW_SECONDS = 900;
const DAY_SECONDS = 86_400;
export const SIGN_IN_LIMITS = {
  codesPerAddress: 5,
  codesPerClient: 20,
  checksPerClient: 30,
  /** Code emails per address a day: beyond, nothing is sent (the answer is the same). */
  codesPerAddressPerDay: 10,
  /** Wrong codes per address a day: then sign-in by code is paused for it until the day ends. */
  wrongCodesPerAddressPerDay: 10,
} as const;

export interface SignInDeps {
  db: Db;
  /** Null when email is not configured: no code can be sent. */
  mailer: Mailer | null;
  rateLimits: RateLimitStore;
  secretsKey: Buffer;
  appUrl: string;
  now: () => Date;
}

export type CodeCheck =
  | { ok: true; person: PersonRow }
  | { ok: false; reason: "wrong" | "throttled" | "paused" };

/** Limit keys hold a digest of the address, never the address. */
function addressKey(email: string): string {
  return createHash("sha256").update(email).digest("base64url").slice(0, 22);
}

const wrongCodesKey = (address: string) => `signin:wrong:addr:${address}`;

/**
 * Sign-in with a one-time code. Nothing a visitor can time tells a member's address from a
 * stranger's: asking for a code does the same throttle counting for any address, and the lookup,
 * the code and the email happen a moment after the answer (`afterAnswer`); a wrong code costs a
 * database read and two counter hits, whether or not the address has a code waiting. The daily
 * counters live in the rate-limit store (Redis when REDIS_URL is set), so they hold across
 * replicas, for strangers' addresses as for members'.
 */
export function createSignInService(deps: SignInDeps) {
  const key = signInCodeKey(deps.secretsKey);
  // A stand-in for an address with no code, so that a check does the same work either way.
  const absent = hashSignInCode(key, "absent", "000000");
  const afterAnswer = afterAnswerQueue();
  const limits = deps.rateLimits;

  /** The person of a member's address; null for anyone else. */
  async function memberByEmail(email: string): Promise<PersonRow | null> {
    const person = await findPersonByEmail(deps.db, email);
    if (!person) return null;
    const [member] = await deps.db
      .select({ personId: workspaceMemberships.personId })
      .from(workspaceMemberships)
      .where(eq(workspaceMemberships.personId, person.id))
      .limit(1);
    return member ? person : null;
  }

  const paused = async (address: string) =>
    (await peekLimit(limits, wrongCodesKey(address), DAY_SECONDS)) >=
    SIGN_IN_LIMITS.wrongCodesPerAddressPerDay;

  /** Makes, stores (replacing any earlier one) and emails a code to a member. */
  async function sendCode(email: string, address: string): Promise<void> {
    if (await paused(address)) return;
    const person = await memberByEmail(email);
    if (!person) return;
    if (!deps.mailer) {
      log.warn("sign-in code not sent: email is not configured (FORMS_FROM_EMAIL)");
      return;
    }
    const code = newSignInCode();
    const now = deps.now();
    const row = {
      personId: person.id,
      codeHash: hashSignInCode(key, person.id, code),
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      createdAt: now,
    };
    await deps.db
      .insert(workspaceSignInCodes)
      .values(row)
      .onConflictDoUpdate({ target: workspaceSignInCodes.personId, set: row });
    await deps.mailer.send(signInCodeEmail(person.email, code, deps.appUrl));
  }

  /** Tells a member that sign-in by code is paused for their address. */
  async function tellPaused(email: string): Promise<void> {
    const person = await memberByEmail(email);
    if (!person || !deps.mailer) return;
    const wrongCodes = SIGN_IN_LIMITS.wrongCodesPerAddressPerDay;
    await deps.mailer.send(signInPausedEmail(person.email, wrongCodes, deps.appUrl));
  }

  /**
   * Counts a wrong code against the address's day and the code's tries. The same two hits for
   * any address, and no database write: the time does not say whether a code was waiting. The
   * wrong code that reaches the day's limit pauses sign-in by code and tells the person, once.
   */
  async function wrongCode(email: string, address: string, tries: string): Promise<CodeCheck> {
    const limit = SIGN_IN_LIMITS.wrongCodesPerAddressPerDay;
    const [wrongToday] = await Promise.all([
      checkLimit(limits, wrongCodesKey(address), limit, DAY_SECONDS),
      checkLimit(limits, tries, MAX_WRONG_TRIES, DAY_SECONDS),
    ]);
    if (wrongToday.count === limit) {
      afterAnswer.run("sign-in pause not told", () => tellPaused(email));
    }
    return { ok: false, reason: wrongToday.count >= limit ? "paused" : "wrong" };
  }

  return {
    /** Throttles, then sends a code a moment after the answer when the address is a member's. */
    async requestCode(rawEmail: string, clientIp: string): Promise<void> {
      const email = normalizeEmail(rawEmail);
      const address = addressKey(email);
      // Counted in order, none after the first refusing: a client over its limit spends none of
      // the address's codes.
      const allowed = await checkLimits(limits, [
        {
          key: `signin:code:ip:${addressLimitKey(clientIp)}`,
          limit: SIGN_IN_LIMITS.codesPerClient,
          windowSeconds: WINDOW_SECONDS,
        },
        {
          key: `signin:code:addr:${address}`,
          limit: SIGN_IN_LIMITS.codesPerAddress,
          windowSeconds: WINDOW_SECONDS,
        },
        {
          key: `signin:code:addr-day:${address}`,
          limit: SIGN_IN_LIMITS.codesPerAddressPerDay,
          windowSeconds: DAY_SECONDS,
        },
      ]);
      if (!allowed.allowed) return;
      afterAnswer.run("sign-in code not sent", () => sendCode(email, address));
    },

    /**
     * Checks a code: right, unexpired, unburnt and the address not paused signs in and uses the
     * code up.
     */
    async checkCode(rawEmail: string, code: string, clientIp: string): Promise<CodeCheck> {
      const throttle = await checkLimit(
        limits,
        `signin:check:ip:${addressLimitKey(clientIp)}`,
        SIGN_IN_LIMITS.checksPerClient,
        WINDOW_SECONDS,
      );
      if (!throttle.allowed) return { ok: false, reason: "throttled" };
      const email = normalizeEmail(rawEmail);
      const address = addressKey(email);
      // One query whether or not the address is known or has a code.
      const [found] = await deps.db
        .select({ person: workspacePeople, code: workspaceSignInCodes })
        .from(workspacePeople)
        .leftJoin(workspaceSignInCodes, eq(workspaceSignInCodes.personId, workspacePeople.id))
        .where(eq(workspacePeople.email, email));
      const person = found?.person;
      const stored = found?.code;
      const shaped = CODE_SHAPE.test(code);
      const presented = hashSignInCode(key, person?.id ?? "absent", shaped ? code : "x");
      const matches = sameHash(presented, stored?.codeHash ?? absent) && shaped;
      // Each code has its own count of tries; a new code starts afresh.
      const tries = `signin:tries:${address}:${stored?.createdAt.getTime() ?? "none"}`;
      if (!matches || !person || !stored) return wrongCode(email, address, tries);

      // The right code: only its person (or a lucky guess) gets here.
      const [pausedNow, tried] = await Promise.all([
        paused(address),
        checkLimit(limits, tries, MAX_WRONG_TRIES, DAY_SECONDS),
      ]);
      if (pausedNow) return { ok: false, reason: "paused" };
      // The code is used up, or found dead: either way its row goes, and only the request that
      // deletes it may sign in.
      const used = await deps.db
        .delete(workspaceSignInCodes)
        .where(
          and(
            eq(workspaceSignInCodes.personId, person.id),
            eq(workspaceSignInCodes.codeHash, stored.codeHash),
          ),
        )
        .returning({ personId: workspaceSignInCodes.personId });
      const alive = tried.allowed && stored.expiresAt.getTime() > deps.now().getTime();
      return used.length === 1 && alive ? { ok: true, person } : { ok: false, reason: "wrong" };
    },

    /** Resolves when every task after an answer has finished (tests, shutdown). */
    idle: afterAnswer.idle,
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
