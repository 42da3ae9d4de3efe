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
