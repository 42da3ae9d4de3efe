import type { Mailer } from "@newsroom/shared/mailer";
import { labelledLines, sendAcknowledgement } from "../submission/emails.ts";
import type { ContactIn } from "./model.ts";

/** The contact enquiry's batch: the team email (replies go to the sender), then the ack. */
export async function sendContactEnquiry(input: ContactIn, mailer: Mailer): Promise<void> {
  await mailer.send({
    to: [mailer.teamAddress!],
    replyTo: [input.email],
    subject: `Contact enquiry (${input.intent}) from ${input.name}`,
    text: labelledLines([
      ["Intent", input.intent],
      ["Audience", input.audience],
      ["Name", input.name],
      ["Email", input.email],
      ["Organization", input.organization],
      ["Role", input.role],
      ["Website", input.website],
      ["Timeline", input.timeline],
      ["Topic", input.topic],
      ["Message", input.message],
      ["Submission", input.submission_id],
    ]),
  });
  await sendAcknowledgement(mailer, input.email, "enquiry");
}
