import { log } from "@newsroom/shared/log";
import type { Mailer } from "@newsroom/shared/mailer";

/** Plain-text email bodies built from labelled values; empty values are left out. */
export function labelledLines(pairs: [string, string | number | string[] | undefined][]): string {
  return pairs
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([label, value]) => {
      const shown = Array.isArray(value) ? value.join(", ") : String(value);
      return shown.includes("\n") ? `${label}:\n${shown}` : `${label}: ${shown}`;
    })
    .join("\n");
}

/**
 * The acknowledgement the sender gets, after the team email went out. It repeats nothing they
 * typed, so a form cannot be used to send chosen text to someone else's address. If the
 * provider refuses only this one, the submission still counts as sent: a retry would give the
 * team the same submission twice.
 */
export async function sendAcknowledgement(mailer: Mailer, to: string, what: string) {
  try {
    await mailer.send({
      to: [to],
      replyTo: mailer.teamAddress ? [mailer.teamAddress] : undefined,
      subject: `We received your ${what}`,
      text: [
        "Hello,",
        "",
        `Thank you: we received your ${what} and will reply from this address.`,
        "If you did not send it, you can ignore this email; nothing else will follow.",
      ].join("\n"),
    });
  } catch (error) {
    log.warn("acknowledgement refused by the email provider", {
      what,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
