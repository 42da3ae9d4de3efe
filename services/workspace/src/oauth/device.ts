import type { Db, Queryable } from "@newsroom/shared/db/index";
import { oauthClients, oauthDeviceAuthorizations } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { newId } from "@newsroom/shared/ids";
import { and, eq, gt } from "drizzle-orm";
import { approverRole } from "./access.ts";
import type { OAuthClientRow } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import {
  APPROVE_SCOPE,
  DEVICE_CODE_PREFIX,
  DEVICE_CODE_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  displayUserCode,
  hashSecret,
  newSecret,
  newUserCode,
  normalizeUserCode,
} from "./secrets.ts";
import { createGrant, issueTokenPair, type TokenAnswer } from "./tokens.ts";

export type DeviceAuthorizationRow = typeof oauthDeviceAuthorizations.$inferSelect;

/** The device authorization answer (RFC 8628 §3.2). */
export interface DeviceAuthorizationAnswer {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/**
 * A device asks for authorization: a device code it polls with and a user code the person types
 * at `{appUrl}/app/device`.
 */
export async function startDeviceAuthorization(
  db: Queryable,
  client: OAuthClientRow,
  scope: string,
  appUrl: string,
  now: Date,
): Promise<DeviceAuthorizationAnswer> {
  if (!client.grantTypes.includes("urn:ietf:params:oauth:grant-type:device_code")) {
    throw new OAuthError("unauthorized_client", "This application may not use the device grant.");
  }
  const device = newSecret(DEVICE_CODE_PREFIX);
  // A user code is unique among all, live or not: another try on the rare collision.
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    const inserted = await db
      .insert(oauthDeviceAuthorizations)
      .values({
        id: newId(),
        deviceCodeHash: device.hash,
        userCode,
        clientId: client.id,
        scope,
        intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
        expiresAt: new Date(now.getTime() + DEVICE_CODE_SECONDS * 1000),
        createdAt: now,
      })
      .onConflictDoNothing({ target: oauthDeviceAuthorizations.userCode })
      .returning({ id: oauthDeviceAuthorizations.id });
    if (inserted.length > 0) {
      const shown = displayUserCode(userCode);
      const verificationUri = `${appUrl}/app/device`;
      return {
        device_code: device.secret,
        user_code: shown,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${shown}`,
        expires_in: DEVICE_CODE_SECONDS,
        interval: DEVICE_POLL_INTERVAL_SECONDS,
      };
    }
    if (attempt >= 5) throw new Error("no free user code");
  }
}

/** A pending, unexpired device authorization by the code a person typed, with its application. */
export async function findPendingDevice(
  db: Queryable,
  typed: string,
  now: Date,
): Promise<{ device: DeviceAuthorizationRow; client: OAuthClientRow } | null> {
  const userCode = normalizeUserCode(typed);
  if (!userCode) return null;
  const [found] = await db
    .select({ device: oauthDeviceAuthorizations, client: oauthClients })
    .from(oauthDeviceAuthorizations)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthDeviceAuthorizations.clientId))
    .where(
      and(
        eq(oauthDeviceAuthorizations.userCode, userCode),
        eq(oauthDeviceAuthorizations.status, "pending"),
        gt(oauthDeviceAuthorizations.expiresAt, now),
      ),
    );
  return found ?? null;
}

/**
 * A signed-in person's answer on the device page: allow (for one organization where they may
 * decide approvals, which must be the application's) or deny. Answers the application's name.
 */
export async function decideDevice(
  db: Db,
  input: {
    userCode: string;
    personId: string;
    organizationId: string | null;
    decision: "allow" | "deny";
  },
  now: Date,
): Promise<{ client: OAuthClientRow; decision: "allow" | "deny" }> {
  return db.transaction(async (tx) => {
    const found = await findPendingDevice(tx, input.userCode, now);
    if (!found) {
      throw new ApiError("validation_failed", "This code is unknown or expired.", {
        fields: [
          { field: "user_code", reason: "unknown", message: "This code is unknown or expired." },
        ],
      });
    }
    const { device, client } = found;
    if (input.decision === "deny") {
      await tx
        .update(oauthDeviceAuthorizations)
        .set({ status: "denied", personId: input.personId })
        .where(eq(oauthDeviceAuthorizations.id, device.id));
      return { client, decision: "deny" as const };
    }
    const organizationId = input.organizationId ?? client.organizationId;
    if (
      organizationId !== client.organizationId ||
      !(await approverRole(tx, organizationId, input.personId))
    ) {
      throw new ApiError("forbidden", "You may not decide approvals in this organization.");
    }
    await tx
      .update(oauthDeviceAuthorizations)
      .set({ status: "allowed", personId: input.personId, organizationId })
      .where(eq(oauthDeviceAuthorizations.id, device.id));
    return { client, decision: "allow" as const };
  });
}

/**
 * The device code grant (RFC 8628 §3.4, §3.5): pending until the person answers; polled faster
 * than the interval, `slow_down` and the interval grows by five seconds; allowed, the tokens,
 * once.
 */
export async function pollDevice(
  db: Db,
  client: OAuthClientRow,
  deviceCode: string,
  now: Date,
): Promise<TokenAnswer> {
  const outcome = await db.transaction(async (tx) => {
    const [device] = await tx
      .select()
      .from(oauthDeviceAuthorizations)
      .where(eq(oauthDeviceAuthorizations.deviceCodeHash, hashSecret(deviceCode)))
      .for("update");
    if (!device || device.clientId !== client.id) {
      return { error: new OAuthError("invalid_grant", "The device code is unknown.") };
    }
    if (device.usedAt) {
      return { error: new OAuthError("invalid_grant", "The device code was used.") };
    }
    if (device.expiresAt <= now) {
      return { error: new OAuthError("expired_token", "The device code expired: start again.") };
    }
    if (device.status === "denied") {
      return { error: new OAuthError("access_denied", "The person denied the request.") };
    }
    const tooSoon =
      device.lastPolledAt !== null &&
      now.getTime() - device.lastPolledAt.getTime() < device.intervalSeconds * 1000;
    await tx
      .update(oauthDeviceAuthorizations)
      .set({
        lastPolledAt: now,
        intervalSeconds: tooSoon ? device.intervalSeconds + 5 : device.intervalSeconds,
      })
      .where(eq(oauthDeviceAuthorizations.id, device.id));
    if (tooSoon) {
      return {
        error: new OAuthError(
          "slow_down",
          `Polled too soon: wait ${device.intervalSeconds + 5} seconds between requests.`,
        ),
      };
    }
    if (device.status === "pending") {
      return {
        error: new OAuthError("authorization_pending", "The person has not answered yet."),
      };
    }
    if (
      !device.organizationId ||
      !device.personId ||
      !(await approverRole(tx, device.organizationId, device.personId))
    ) {
      return {
        error: new OAuthError("access_denied", "The person who allowed it may no longer approve."),
      };
    }
    const grant = await createGrant(
      tx,
      {
        organizationId: device.organizationId,
        clientId: client.id,
        personId: device.personId,
        scope: device.scope || APPROVE_SCOPE,
      },
      now,
    );
    await tx
      .update(oauthDeviceAuthorizations)
      .set({ usedAt: now })
      .where(eq(oauthDeviceAuthorizations.id, device.id));
    return { answer: await issueTokenPair(tx, grant, now) };
  });
  if ("error" in outcome && outcome.error) throw outcome.error;
  return outcome.answer!;
}
