import type { MailMessage } from "@newsroom/shared/mailer";

/** The email that carries a sign-in code. */
export function signInCodeEmail(to: string, code: string, appUrl: string): MailMessage {
  return {
    to: [to],
    subject: "Your newsroom workspace sign-in code",
    fromName: "Newsroom workspace",
    text: [
      `Your sign-in code is ${code}.`,
      "",
      `Enter it at ${appUrl}/sign-in/code within 10 minutes. It works once.`,
      "",
      "If you did not ask to sign in, ignore this email: nobody can sign in without the code.",
    ].join("\n"),
  };
}

/**
 * Tells a member that sign-in by code is paused for their address after too many wrong codes:
 * once, when the pause starts. The subject does not say "sign-in code" (that is the code's).
 */
export function signInPausedEmail(to: string, wrongCodes: number, appUrl: string): MailMessage {
  return {
    to: [to],
    subject: "Sign-in to your newsroom workspace is paused for today",
    fromName: "Newsroom workspace",
    text: [
      `Someone entered ${wrongCodes} wrong sign-in codes for this address today, so sign-in by`,
      "code is paused for it until the day is over: no code is sent or accepted until then.",
      "",
      "If it was you, try again tomorrow, or use single sign-on if your organization has it.",
      "If it was not you, nobody signed in: someone may be guessing codes. Sessions you already",
      `have at ${appUrl}/ go on as before.`,
    ].join("\n"),
  };
}
