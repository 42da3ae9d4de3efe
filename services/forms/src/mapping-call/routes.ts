import { Elysia } from "elysia";
import { formOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { submitForm } from "../submission/pipeline.ts";
import { MappingCallIn } from "./model.ts";
import { sendMappingCallRequest } from "./service.ts";

export function mappingCallRoutes(deps: FormsDeps) {
  return new Elysia().post(
    "/v1/public/start",
    ({ request }) =>
      submitForm(deps, request, {
        route: "start",
        schema: MappingCallIn,
        team: true,
        humanCheck: true,
        deliver: sendMappingCallRequest,
      }),
    {
      parse: "none",
      detail: formOperation({
        operationId: "requestMappingCall",
        summary: "Request a 20-minute mapping call",
        description: "Also verifies `human_check_token`; a failed check is 422 naming the field.",
        schema: MappingCallIn,
      }),
    },
  );
}
