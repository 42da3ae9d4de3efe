import type { KeyScope } from "@newsroom/shared/api-keys";
import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { answerKey, cachedBody, jsonAnswer } from "../caching/answers.ts";
import { answerRepeatably } from "../caching/repeat-targets.ts";
import { webhookEndpointsOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { listWebhookEndpoints } from "./service.ts";

const SCOPE: KeyScope = "webhooks:read";

/**
 * GET /v1/webhook_endpoints (scope webhooks:read): one page, every endpoint, newest first.
 * Cached like the stories: a change to an endpoint that shows here (the webhooks service
 * disabling a failing one included) moves the organization's data version.
 */
export function webhookEndpointsRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:webhook-endpoints" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, SCOPE),
    }))
    .get(
      "/v1/webhook_endpoints",
      ({ caller, request }) =>
        answerRepeatably(deps, request, caller, SCOPE, async (caller) =>
          jsonAnswer(
            await cachedBody(deps.cache, answerKey("webhook_endpoints", caller), async () =>
              JSON.stringify(await listWebhookEndpoints(deps.db!, caller)),
            ),
          ),
        ),
      { detail: webhookEndpointsOperation },
    );
}
