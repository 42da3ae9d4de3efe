import type { KeyScope } from "@newsroom/shared/api-keys";
import type { EarlyRouter } from "@newsroom/shared/http/http-kit";
import { matchedRouteOf } from "@newsroom/shared/http/request-context";
import { targetOf } from "@newsroom/shared/http/urls";
import { requireKey } from "../auth/guard.ts";
import type { Caller } from "../auth/service.ts";
import type { ClientApiDeps } from "../deps.ts";

/**
 * A GET route's answer for `caller`, by `answer`; once given, the request's exact target is
 * remembered with it, so that the next request for the same target, whatever its key, is
 * answered by `repeatedTarget` without routing and checking the same parameters again.
 */
export async function answerRepeatably(
  deps: Pick<ClientApiDeps, "targets">,
  request: Request,
  caller: Caller,
  scope: KeyScope,
  answer: (caller: Caller) => Promise<Response>,
): Promise<Response> {
  const response = await answer(caller);
  const route = matchedRouteOf(request);
  if (route && request.method === "GET") {
    deps.targets.remember(targetOf(request.url), { route, scope, answer });
  }
  return response;
}

/**
 * The client API's one fast path, asked before its router (the kit's `earlyAnswer`): a GET whose exact
 * target a route answered before gets the same key check and the same answer as that route
 * would give, without the router. Every request still reads its key's row (revocation, expiry,
 * scope and the organization's data version), here as on the route.
 */
export function repeatedTarget(deps: ClientApiDeps): EarlyRouter {
  return (request) => {
    if (request.method !== "GET") return undefined;
    const known = deps.targets.get(targetOf(request.url));
    if (!known) return undefined;
    return {
      route: known.route,
      respond: async () => known.answer(await requireKey(deps, request, known.scope)),
    };
  };
}
