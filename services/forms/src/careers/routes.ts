import { Elysia } from "elysia";
import { formOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { submitForm } from "../submission/pipeline.ts";
import { CareerApplicationIn } from "./model.ts";
import { sendCareerApplication } from "./service.ts";

export function careersRoutes(deps: FormsDeps) {
  return new Elysia().post(
    "/v1/public/careers",
    ({ request }) =>
      submitForm(deps, request, {
        route: "careers",
        schema: CareerApplicationIn,
        team: true,
        humanCheck: false,
        deliver: sendCareerApplication,
      }),
    {
      parse: "none",
      detail: formOperation({
        operationId: "submitCareerApplication",
        summary: "Career application",
        description:
          "A profile link replaces file uploads. Emails the team and acknowledges the sender.",
        schema: CareerApplicationIn,
      }),
    },
  );
}
