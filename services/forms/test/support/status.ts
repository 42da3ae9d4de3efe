import { expect } from "bun:test";
import { statusSubscribers } from "@newsroom/shared/db/schema";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import { envelope, type FormsHarness, type SesEmail, type SesEmulator } from "./harness.ts";

export const STATUS_SUBSCRIBE = "/v1/public/status/subscribe";

/** The confirmation token in a status confirmation email's link. */
export function statusTokenIn(email: SesEmail | undefined): string {
  const match = /\/v1\/public\/status\/confirm\?t=([A-Za-z0-9_-]{43})/.exec(email?.body.text ?? "");
  if (!match) throw new Error(`no status confirmation link in: ${email?.body.text}`);
  return match[1]!;
}

export function subscribeToStatus(
  forms: FormsHarness,
  email: string,
  init: Parameters<FormsHarness["post"]>[2] = {},
) {
  return forms.post(STATUS_SUBSCRIBE, { email, ...envelope(forms.clock.now().getTime()) }, init);
}

/** The emails to an address whose subject starts with `prefix`. */
export async function emailsTo(ses: SesEmulator, address: string, prefix: string) {
  return (await ses.to(address)).filter((mail) => mail.subject.startsWith(prefix));
}

/** Subscribes and confirms an address; returns its welcome email. */
export async function statusSubscriber(
  forms: FormsHarness,
  ses: SesEmulator,
  email: string,
): Promise<SesEmail> {
  expect((await subscribeToStatus(forms, email)).status).toBe(202);
  const [confirmation] = await emailsTo(ses, email, "Confirm your subscription to status");
  const confirmed = await forms.post(
    "/v1/public/status/confirm",
    { t: statusTokenIn(confirmation) },
    { headers: { accept: "application/json" } },
  );
  expect(confirmed.status).toBe(200);
  const [welcome] = await eventually(
    () => emailsTo(ses, email, "You are subscribed to status updates"),
    (found) => found.length > 0,
    { message: `the welcome email to ${email}` },
  );
  return welcome!;
}

export async function statusRow(forms: FormsHarness, email: string) {
  const [row] = await forms.database.db
    .select()
    .from(statusSubscribers)
    .where(eq(statusSubscribers.email, email.toLowerCase()));
  return row;
}

/** Waits for `count` emails to an address under `subject`; returns them. */
export function emailsArrive(ses: SesEmulator, address: string, subject: string, count = 1) {
  return eventually(
    () => emailsTo(ses, address, subject),
    (found) => found.length >= count,
    { message: `${count} email(s) "${subject}" to ${address}`, timeoutMs: 30_000 },
  );
}
