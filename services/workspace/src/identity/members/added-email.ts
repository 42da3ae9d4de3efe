import type { MemberRole } from "@newsroom/shared/db/schema";
import type { MailMessage } from "@newsroom/shared/mailer";

/** The email that tells a person they were added to an organization, and how to sign in. */
export function addedToOrganizationEmail(options: {
  to: string;
  organization: string;
  role: MemberRole;
  addedBy: string;
  appUrl: string;
}): MailMessage {
  return {
    to: [options.to],
    subject: `You were added to ${options.organization} on the newsroom workspace`,
    fromName: "Newsroom workspace",
    text: [
      `${options.addedBy} added you to ${options.organization} as ${options.role}.`,
      "",
      `Sign in at ${options.appUrl}/sign-in with this address (${options.to}).`,
      "We email you a six-digit code each time; there is no password.",
      "",
      "If you did not expect this, you can ignore this email.",
    ].join("\n"),
  };
}
