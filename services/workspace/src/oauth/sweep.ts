import type { Queryable } from "@newsroom/shared/db/index";
import {
  oauthAuthorizationCodes,
  oauthDeviceAuthorizations,
  oauthTokens,
} from "@newsroom/shared/db/schema";
import { lt } from "drizzle-orm";

/** How long a spent or expired code or token is kept after its end, then deleted. */
export const OAUTH_KEEP_AFTER_EXPIRY_MS = 24 * 3_600_000;
/** How often each replica sweeps (idempotent deletes: replicas may overlap). */
export const OAUTH_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Deletes authorization codes, device authorizations and tokens a day past their expiry: none
 * can be used any more. Grants stay (the audit log names them). A used refresh token is kept
 * until it expires, so that its reuse still revokes its family.
 */
export async function sweepOAuth(db: Queryable, now: Date): Promise<number> {
  const before = new Date(now.getTime() - OAUTH_KEEP_AFTER_EXPIRY_MS);
  const [codes, devices, tokens] = await Promise.all([
    db
      .delete(oauthAuthorizationCodes)
      .where(lt(oauthAuthorizationCodes.expiresAt, before))
      .returning({ hash: oauthAuthorizationCodes.codeHash }),
    db
      .delete(oauthDeviceAuthorizations)
      .where(lt(oauthDeviceAuthorizations.expiresAt, before))
      .returning({ id: oauthDeviceAuthorizations.id }),
    db
      .delete(oauthTokens)
      .where(lt(oauthTokens.expiresAt, before))
      .returning({ hash: oauthTokens.tokenHash }),
  ]);
  return codes.length + devices.length + tokens.length;
}

/** Sweeps every hour until stopped; a failed sweep is logged and tried again next time. */
export function startOAuthSweeper(
  db: Queryable,
  now: () => Date,
  onError: (error: unknown) => void,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepOAuth(db, now()).catch(onError);
  }, OAUTH_SWEEP_INTERVAL_MS);
  timer.unref?.();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
