import type { Mailer } from "@newsroom/shared/mailer";
import { labelledLines, sendAcknowledgement } from "../submission/emails.ts";
import type { MappingCallIn } from "./model.ts";

/** The mapping-call request's batch: the team email, then the acknowledgement. */
export async function sendMappingCallRequest(input: MappingCallIn, mailer: Mailer) {
  const stack = input.stack ?? {};
  await mailer.send({
    to: [mailer.teamAddress!],
    replyTo: [input.email],
    subject: `Mapping call request from ${input.email}`,
    text: labelledLines([
      ["Email", input.email],
      ["Need", input.need],
      ["Site", stack.site],
      ["Approvals", stack.approvals],
      ["CRM", stack.crm],
      ["Sign-in", stack.sign_in],
      ["Submission", input.submission_id],
    ]),
  });
  await sendAcknowledgement(mailer, input.email, "request for a mapping call");
}
