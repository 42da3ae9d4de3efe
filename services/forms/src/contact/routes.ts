import { Elysia } from "elysia";
import { formOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { submitForm } from "../submission/pipeline.ts";
import { ContactIn } from "./model.ts";
import { sendContactEnquiry } from "./service.ts";

export function contactRoutes(deps: FormsDeps) {
  return new Elysia().post(
    "/v1/public/contact",
    ({ request }) =>
      submitForm(deps, request, {
        route: "contact",
        schema: ContactIn,
        team: true,
        humanCheck: false,
        deliver: sendContactEnquiry,
      }),
    {
      parse: "none",
      detail: formOperation({
        operationId: "submitContactEnquiry",
        summary: "Contact enquiry",
        description: "Emails the team and acknowledges the sender. Stores nothing.",
        schema: ContactIn,
      }),
    },
  );
}
