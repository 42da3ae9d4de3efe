/**
 * What an action's redirect says on the page it lands on: the redirect names a message
 * (`?done=`), and the layout shows it above the page. Only these texts can be shown, so an
 * address someone else made says nothing new.
 */
export const DONE_MESSAGES = {
  approved: "The story was approved: it may now be published.",
  rejected: "The story was rejected: its author sees your note.",
  published: "The story is published.",
  unpublished: "The story is unpublished: it is no longer on the public newsroom.",
  submitted: "Submitted for review: an approver decides it.",
  scheduled: "The story is scheduled: it is published at the time shown.",
  unscheduled: "The schedule was cancelled: the story is approved, not published.",
  "key-revoked": "The key was revoked: requests made with it are refused from now on.",
  "preview-link-revoked": 'The preview link was revoked: it answers "not found" from now on.',
  "endpoint-disabled": "The endpoint was disabled: nothing is sent to it until it is enabled.",
  "endpoint-deleted": "The endpoint was deleted.",
  "endpoint-options-changed": "The endpoint's rate and ordering were saved.",
  "delivery-resent": "The delivery is being sent again, with its original webhook-id.",
  "org-created": "The organization was created.",
  invited: "The person was added and told by email how to sign in.",
  "invited-no-email":
    "The person was added, but the email could not be sent: tell them to sign in at the sign-in page.",
  "role-changed": "The role was changed.",
  removed: "The person was removed from the organization.",
  enabled: "The newsletter is on.",
  disabled: "The newsletter is off.",
  "origin-added": "The origin was added.",
  "origin-removed": "The origin was removed.",
  "site-added": "The site was added.",
  "hostname-added": "The hostname was added. It stays pending until an operator activates it.",
  "cms-connection-added":
    "The connection was added. Its credential is stored sealed and is not shown again.",
  "cms-connection-changed": "The connection was saved.",
  "cms-connection-deleted": "The connection was deleted. Posts already written stay on the site.",
  "sso-saved": "The single sign-on settings were saved.",
  "status-posted": "Saved: the status page shows it, and subscribers are told.",
  "status-component-saved": "The component's state on the status page was saved.",
  "api-approvals-on":
    "Approvals through the API are on: applications members allowed may now decide stories.",
  "api-approvals-off": "Approvals through the API are off: no application may decide stories.",
  "oauth-client-registered": "The application was registered: configure it with its client id.",
  "oauth-client-deleted": "The application was deleted: its tokens stopped working.",
  "application-revoked": "The application's access was revoked: its tokens stopped working.",
  "signed-out": "You are signed out.",
  "signed-out-everywhere": "Every session of your account has ended, this one included.",
} as const;

export type DoneKey = keyof typeof DONE_MESSAGES;

/** The path with the message its page shows once the person lands there. */
export function withDone(path: string, key: DoneKey): string {
  return `${path}${path.includes("?") ? "&" : "?"}done=${key}`;
}

/** The message a page request names (`?done=`), if it names a known one. */
export function doneMessageOf(request: Request): string | null {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const key = new URL(request.url).searchParams.get("done");
  return key && Object.hasOwn(DONE_MESSAGES, key) ? DONE_MESSAGES[key as DoneKey] : null;
}
