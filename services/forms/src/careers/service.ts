import type { Mailer } from "@newsroom/shared/mailer";
import { labelledLines, sendAcknowledgement } from "../submission/emails.ts";
import type { CareerApplicationIn } from "./model.ts";

/** The career application's batch: the team email, then the acknowledgement. */
export async function sendCareerApplication(
  input: CareerApplicationIn,
  mailer: Mailer,
): Promise<void> {
  await mailer.send({
    to: [mailer.teamAddress!],
    replyTo: [input.email],
    subject: `Career application from ${input.name} (${input.areas.join(", ")})`,
    text: labelledLines([
      ["Name", input.name],
      ["Email", input.email],
      ["Location", input.location],
      ["Profile", input.profile],
      ["Areas", input.areas],
      ["Years of experience", input.years],
      ["Note", input.note],
      ["Submission", input.submission_id],
    ]),
  });
  await sendAcknowledgement(mailer, input.email, "application");
}
