import { secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import type { FormsDeps } from "../deps.ts";
import { leaveDigest, subscriptionStatus } from "../digest/store.ts";
import { DIGEST_UNSUBSCRIBE, readUnsubscribeToken, type UnsubscribeLinks } from "./link.ts";

/**
 * What an unsubscribe link stands for: `invalid` for a malformed or forged token; `subscribed`
 * while the subscription is on the list; `unsubscribed` once it is not (or no longer exists).
 */
export type UnsubscribeState = "invalid" | "subscribed" | "unsubscribed";

/** A list of this service's own that its signed links take a subscription off. */
export interface LeavableList {
  links: UnsubscribeLinks;
  /** Whether the subscription is on the list now. */
  isSubscribed(db: Db, subscriptionId: string): Promise<boolean>;
  /** Takes it off; doing it again changes nothing. */
  leave(db: Db, subscriptionId: string): Promise<unknown>;
}

export const DIGEST_LIST: LeavableList = {
  links: DIGEST_UNSUBSCRIBE,
  isSubscribed: async (db, id) => (await subscriptionStatus(db, id)) === "subscribed",
  leave: leaveDigest,
};

function subscriptionOf(deps: FormsDeps, list: LeavableList, token: string): string | null {
  return readUnsubscribeToken(secretsKey(deps.config), token, list.links.purpose);
}

/** What the unsubscribe page shows. Reading it changes nothing. */
export async function describeUnsubscribe(
  deps: FormsDeps,
  token: string,
  list: LeavableList = DIGEST_LIST,
): Promise<UnsubscribeState> {
  const id = subscriptionOf(deps, list, token);
  if (!id) return "invalid";
  return (await list.isSubscribed(deps.db, id)) ? "subscribed" : "unsubscribed";
}

/** Takes the link's subscription off its list. Idempotent: a repeat answers `unsubscribed`. */
export async function unsubscribeFrom(
  deps: FormsDeps,
  token: string,
  list: LeavableList = DIGEST_LIST,
): Promise<"invalid" | "unsubscribed"> {
  const id = subscriptionOf(deps, list, token);
  if (!id) return "invalid";
  await list.leave(deps.db, id);
  return "unsubscribed";
}
