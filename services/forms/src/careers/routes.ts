import { Elysia } from "elysia";
import type { FormsDeps } from "../deps.ts";
import { submitForm } from "../submission/pipeline.ts";
import { CareerApplicationIn } from "./model.ts";
import { sendCareerApplication } from "./service.ts";

export function careerRoutes(deps: FormsDeps) {
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
    { parse: "none" },
  );
}
