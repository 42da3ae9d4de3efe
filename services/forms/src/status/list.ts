import type { MailMessage } from "@newsroom/shared/mailer";
import type { OptInList } from "../confirmations/opt-in.ts";
import { statusUnsubscribePageOperation, statusUnsubscribePostOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { signedUnsubscribe, type UnsubscribeLinks } from "../unsubscribe/link.ts";
import type { UnsubscribePages } from "../unsubscribe/routes.ts";
import type { LeavableList } from "../unsubscribe/service.ts";
import {
  isStatusSubscriber,
  joinStatus,
  leaveStatus,
  type StatusJoin,
  undoJoinStatus,
} from "./store.ts";

export const STATUS_PATHS = {
  subscribe: "/v1/public/status/subscribe",
  confirm: "/v1/public/status/confirm",
  unsubscribe: "/v1/public/status/unsubscribe",
} as const;

/** Who the status emails and pages speak for. */
export const STATUS_BRAND = "Status updates";

/** The status page on the gateway: where the pages lead back to and the form returns. */
export function statusPageUrl(config: FormsDeps["config"]): string {
  return `${config.PUBLIC_BASE_URL.replace(/\/+$/, "")}/status`;
}

export const STATUS_UNSUBSCRIBE: UnsubscribeLinks = {
  purpose: "status-unsubscribe-v1",
  path: STATUS_PATHS.unsubscribe,
};

/** A subscriber's unsubscribe link and List-Unsubscribe headers: in every status email. */
export function statusUnsubscribe(config: FormsDeps["config"], subscriberId: string) {
  return signedUnsubscribe(config, STATUS_UNSUBSCRIBE, subscriberId);
}

/** The status page's updates as a double opt-in list. */
export function statusOptIn(deps: FormsDeps): OptInList<StatusJoin> {
  return {
    list: "status",
    confirmPath: STATUS_PATHS.confirm,
    confirmation: {
      subject: "Confirm your subscription to status updates",
      what: "an email for each update of an incident or maintenance on our status page",
    },
    join: joinStatus,
    undoJoin: undoJoinStatus,
    welcome: (email, joined) => welcomeEmail(deps, email, joined.id),
  };
}

function welcomeEmail(deps: FormsDeps, email: string, subscriberId: string): MailMessage {
  const unsubscribe = statusUnsubscribe(deps.config, subscriberId);
  return {
    to: [email],
    subject: "You are subscribed to status updates",
    text: [
      "Hello,",
      "",
      "You will get an email each time an incident or a scheduled maintenance on our status page",
      `is opened or updated: ${statusPageUrl(deps.config)}`,
      "",
      "Every update carries a link to unsubscribe. To stop them now:",
      "",
      unsubscribe.link,
    ].join("\n"),
    headers: unsubscribe.headers,
  };
}

export const STATUS_LIST: LeavableList = {
  links: STATUS_UNSUBSCRIBE,
  isSubscribed: isStatusSubscriber,
  leave: leaveStatus,
};

export const STATUS_UNSUBSCRIBE_PAGES: UnsubscribePages = {
  list: STATUS_LIST,
  brand: STATUS_BRAND,
  heading: "Unsubscribe from status updates",
  message:
    "Press the button and incident updates stop coming to the address this link was sent to.",
  invalid: "Open the unsubscribe link from a status update email again.",
  unsubscribed:
    "Incident updates no longer come to this address. You can subscribe again on the status page.",
  back: (deps) => statusPageUrl(deps.config),
  detail: { page: statusUnsubscribePageOperation, post: statusUnsubscribePostOperation },
};
