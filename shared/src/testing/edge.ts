import { type EdgeOptions, edge } from "../http/edge.ts";

/**
 * An app behind the edge, called in-process as the tests call it: every answer a promise
 * (the edge itself hands an answer given at once back at once, for the server).
 */
export function edgeInProcess(
  handle: (request: Request) => Response | Promise<Response>,
  options: EdgeOptions = { trustedProxies: "" },
): (request: Request) => Promise<Response> {
  const fetch = edge(handle, options);
  return async (request) => fetch(request);
}
