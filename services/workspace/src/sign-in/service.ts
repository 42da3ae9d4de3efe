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
import { checkLimit, type RateLimitStore } from "@newsroom/shared/rate-limit";
import { and, eq, sql } from "drizzle-orm";
import { findPersonByEmail, normalizeEmail, type PersonRow } from "../members/store.ts";
import { CODE_SHAPE, hashSignInCode, newSignInCode, signInCodeKey } from "./codes.ts";
import { signInCodeEmail } from "./email.ts";

/** A code lives 10 minutes; five wrong tries burn it. */
export const CODE_TTL_MS = 10 * 60_000;
export const MAX_WRONG_TRIES = 5;

/** Throttles, per fixed 15-minute window. */
const WINDOW_SECONDS = 900;
export const SIGN_IN_LIMITS = {
  codesPerAddress: 5,
  codesPerClient: 20,
  checksPerClient: 30,
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
  | { ok: false; reason: "wrong" | "throttled" };

/** Limit keys hold a digest of the address, never the address. */
function addressKey(email: string): string {
  return createHash("sha256").update(email).digest("base64url").slice(0, 22);
}

/**
 * Sign-in with a one-time code. Asking for a code answers the same, in the same time, for any
 * address: the lookup, the code and the email happen after the answer (`later`).
 */
export function createSignInService(deps: SignInDeps) {
  const key = signInCodeKey(deps.secretsKey);
  // A stand-in for an address with no code, so that a check does the same work either way.
  const absent = hashSignInCode(key, "absent", "000000");
  const pending = new Set<Promise<void>>();

  const later = (task: () => Promise<void>) => {
    const run: Promise<void> = task()
      .catch((error) => {
        log.error("sign-in code not sent", {
          error: error instanceof Error ? error.name : String(error),
        });
      })
      .finally(() => pending.delete(run));
    pending.add(run);
  };

  /** Makes, stores (replacing any earlier one) and emails a code to a member. */
  async function sendCode(email: string): Promise<void> {
    const person = await findPersonByEmail(deps.db, email);
    if (!person) return;
    const [member] = await deps.db
      .select({ personId: workspaceMemberships.personId })
      .from(workspaceMemberships)
      .where(eq(workspaceMemberships.personId, person.id))
      .limit(1);
    if (!member) return;
    if (!deps.mailer) {
      log.warn("sign-in code not sent: email is not configured (FORMS_FROM_EMAIL)");
      return;
    }
    const code = newSignInCode();
    const now = deps.now();
    const row = {
      personId: person.id,
      codeHash: hashSignInCode(key, person.id, code),
      failedAttempts: 0,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      createdAt: now,
    };
    await deps.db
      .insert(workspaceSignInCodes)
      .values(row)
      .onConflictDoUpdate({ target: workspaceSignInCodes.personId, set: row });
    await deps.mailer.send(signInCodeEmail(person.email, code, deps.appUrl));
  }

  return {
    /** Throttles, then sends a code in the background when the address is a member's. */
    async requestCode(rawEmail: string, clientIp: string): Promise<void> {
      const email = normalizeEmail(rawEmail);
      const [byAddress, byClient] = await Promise.all([
        checkLimit(
          deps.rateLimits,
          `signin:code:addr:${addressKey(email)}`,
          SIGN_IN_LIMITS.codesPerAddress,
          WINDOW_SECONDS,
        ),
        checkLimit(
          deps.rateLimits,
          `signin:code:ip:${addressLimitKey(clientIp)}`,
          SIGN_IN_LIMITS.codesPerClient,
          WINDOW_SECONDS,
        ),
      ]);
      if (!byAddress.allowed || !byClient.allowed) return;
      later(() => sendCode(email));
    },

    /** Checks a code: right, unexpired and unburnt signs in and uses it up. */
    async checkCode(rawEmail: string, code: string, clientIp: string): Promise<CodeCheck> {
      const throttle = await checkLimit(
        deps.rateLimits,
        `signin:check:ip:${addressLimitKey(clientIp)}`,
        SIGN_IN_LIMITS.checksPerClient,
        WINDOW_SECONDS,
      );
      if (!throttle.allowed) return { ok: false, reason: "throttled" };
      const email = normalizeEmail(rawEmail);
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
      if (!person || !stored) return { ok: false, reason: "wrong" };
      const now = deps.now();
      if (stored.expiresAt.getTime() <= now.getTime()) {
        await deps.db
          .delete(workspaceSignInCodes)
          .where(eq(workspaceSignInCodes.personId, person.id));
        return { ok: false, reason: "wrong" };
      }
      if (matches) {
        // Single use: only the request that deletes the row signs in.
        const used = await deps.db
          .delete(workspaceSignInCodes)
          .where(
            and(
              eq(workspaceSignInCodes.personId, person.id),
              eq(workspaceSignInCodes.codeHash, stored.codeHash),
              sql`${workspaceSignInCodes.failedAttempts} < ${MAX_WRONG_TRIES}`,
            ),
          )
          .returning({ personId: workspaceSignInCodes.personId });
        return used.length === 1 ? { ok: true, person } : { ok: false, reason: "wrong" };
      }
      const [tried] = await deps.db
        .update(workspaceSignInCodes)
        .set({ failedAttempts: sql`${workspaceSignInCodes.failedAttempts} + 1` })
        .where(eq(workspaceSignInCodes.personId, person.id))
        .returning({ failedAttempts: workspaceSignInCodes.failedAttempts });
      if (tried && tried.failedAttempts >= MAX_WRONG_TRIES) {
        await deps.db
          .delete(workspaceSignInCodes)
          .where(eq(workspaceSignInCodes.personId, person.id));
      }
      return { ok: false, reason: "wrong" };
    },

    /** Resolves when every background send has finished (tests, shutdown). */
    async idle(): Promise<void> {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
