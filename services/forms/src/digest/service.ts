import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import {
  type ConfirmationOutcome,
  confirmSubscription,
  type OptInList,
  requestConfirmation,
} from "../confirmations/opt-in.ts";
import type { FormsDeps } from "../deps.ts";
import { digestUnsubscribe } from "../unsubscribe/link.ts";
import { type DigestJoin, joinDigest, undoJoinDigest } from "./store.ts";

export type { ConfirmationOutcome };

const DIGEST_NAME = "the weekly digest";

/** The weekly digest as a double opt-in list: `digest_subscriptions`, its signed unsubscribe link. */
function digestOptIn(deps: FormsDeps): OptInList<DigestJoin> {
  return {
    list: "digest",
    confirmPath: "/v1/public/newsletter/confirm",
    confirmation: { subject: "Confirm your subscription to the weekly digest", what: DIGEST_NAME },
    join: joinDigest,
    undoJoin: undoJoinDigest,
    welcome: (email, joined) => welcomeEmail(deps, email, joined.id),
  };
}

/**
 * A digest subscribe request that passed validation and screening. Whatever the address's
 * state (new, pending, subscribed), a confirmation email goes out unless the address already got
 * one this hour or two today. The caller answers the same either way.
 */
export function requestDigestConfirmation(
  deps: FormsDeps,
  mailer: Mailer,
  address: string,
): Promise<void> {
  return requestConfirmation(deps, mailer, digestOptIn(deps), address);
}

/**
 * Confirms a digest link: joins the list, then sends the welcome email. A used link answers
 * confirmed again and does nothing. If the welcome email fails, the join is taken back and the
 * link stays usable (the caller answers 502). `token` fits ConfirmTokenIn (the route checks).
 */
export function confirmDigest(
  deps: FormsDeps,
  mailer: Mailer,
  token: string,
): Promise<ConfirmationOutcome> {
  return confirmSubscription(deps, mailer, digestOptIn(deps), token);
}

/** The welcome email: like every digest email, it carries the subscription's unsubscribe link. */
function welcomeEmail(deps: FormsDeps, email: string, subscriptionId: string): MailMessage {
  const unsubscribe = digestUnsubscribe(deps.config, subscriptionId);
  return {
    to: [email],
    subject: "Welcome to the weekly digest",
    text: [
      "Hello,",
      "",
      `You are subscribed to ${DIGEST_NAME}: the week's published news, once a week.`,
      "Every digest carries a link to unsubscribe. To stop it now:",
      "",
      unsubscribe.link,
    ].join("\n"),
    headers: unsubscribe.headers,
  };
}
