import { secretsKey } from "@newsroom/shared/config";
import type { FormsDeps } from "../deps.ts";
import { leaveDigest, subscriptionStatus } from "../digest/store.ts";
import { readUnsubscribeToken } from "./link.ts";

/**
 * What an unsubscribe link stands for: `invalid` for a malformed or forged token; `subscribed`
 * while the subscription is on the list; `unsubscribed` once it is not (or no longer exists).
 */
export type UnsubscribeState = "invalid" | "subscribed" | "unsubscribed";

function subscriptionOf(deps: FormsDeps, token: string): string | null {
  return readUnsubscribeToken(secretsKey(deps.config), token);
}

/** What the unsubscribe page shows. Reading it changes nothing. */
export async function describeUnsubscribe(
  deps: FormsDeps,
  token: string,
): Promise<UnsubscribeState> {
  const id = subscriptionOf(deps, token);
  if (!id) return "invalid";
  return (await subscriptionStatus(deps.db, id)) === "subscribed" ? "subscribed" : "unsubscribed";
}

/** Takes the link's subscription off the digest. Idempotent: a repeat answers `unsubscribed`. */
export async function unsubscribeDigest(
  deps: FormsDeps,
  token: string,
): Promise<"invalid" | "unsubscribed"> {
  const id = subscriptionOf(deps, token);
  if (!id) return "invalid";
  await leaveDigest(deps.db, id);
  return "unsubscribed";
}
