import { requestIdOf } from "@newsroom/shared/http/request-context";
import { DigestRunOut, MailingSendIn } from "@newsroom/shared/mailings";
import { Type as t } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";

/**
 * `POST /internal/v1/digest/send` (`npm run admin -- digest send [--week 2026-W07]`): the forms
 * service sends the digest (it owns the list and the send-once records); this route forwards the
 * operator's command to its internal API and answers what it answers.
 */
export function digestRoutes(deps: WorkspaceDeps) {
  return new Elysia().post(
    "/internal/v1/digest/send",
    ({ body, request }) =>
      deps.calls.forms.call<DigestRunOut>("POST", "/internal/v1/digest/send", {
        body: body ?? {},
        requestId: requestIdOf(request),
      }),
    { body: t.Optional(MailingSendIn), response: DigestRunOut },
  );
}
