import { Elysia } from "elysia";
import { contractOf, retiringHeaders } from "../openapi/operation.ts";
import { allowedMethods, type RoutedApp } from "./allowed-methods.ts";
import { answerObserver } from "./answer-observer.ts";
import { type ElysiaError, errorResponse, toApiError } from "./error-response.ts";
import { contextOf, knownContextOf, requestIdOf } from "./request-context.ts";
import { pathOf } from "./urls.ts";

/**
 * The error handling every app shares: one Error record per failure, the request id in the body,
 * 405 for a known path with another method, never a stack trace. Routes marked retiring in their
 * `operation()` answer with `Deprecation` and `Sunset`. An answer observer installed before the
 * app is built (the test run's contract recorder) sees every answer; without one there is no
 * hook for it.
 */
export function httpKit(name: string) {
  const observe = answerObserver();
  let routesOf: (path: string) => string[] = () => [];
  let retiring = new Map<string, Record<string, string>>();
  /** Notes the route that answers the request; gives its retiring headers, if it is retiring. */
  const routed = (request: Request, route: string) => {
    const context = contextOf(request);
    context.service = name;
    context.route = route;
    return retiring.size > 0 ? retiring.get(`${request.method} ${route}`) : undefined;
  };
  const kit = new Elysia({ name: `http-kit:${name}` })
    .onTransform({ as: "global" }, ({ request, route, set }) => {
      const headers = routed(request, route);
      if (headers) Object.assign(set.headers, headers);
    })
    .onError({ as: "global" }, ({ error, request, set }) => {
      const allowed =
        (error as ElysiaError)?.code === "NOT_FOUND" ? routesOf(pathOf(request.url)) : [];
      const response = errorResponse(toApiError(error, request, allowed), requestIdOf(request));
      const route = knownContextOf(request)?.route;
      for (const header of ["deprecation", "sunset", "link"]) {
        const value = set.headers[header];
        if (route && typeof value === "string") response.headers.set(header, value);
      }
      return response;
    });
  if (observe) {
    kit.mapResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      observe(name, request.method, route, status, responseValue);
    });
  }
  return Object.assign(kit, {
    /**
     * What the kit's hooks do to an answer, for one the app gave without routing the request
     * (a cached answer): the route for metrics, retiring headers, the observed answer.
     */
    answered(request: Request, route: string, response: Response): Response {
      const headers = routed(request, route);
      if (headers)
        for (const [header, value] of Object.entries(headers)) response.headers.set(header, value);
      observe?.(name, request.method, route, response.status, response);
      return response;
    },
    /** Tells the kit the app's routes: they decide 405 versus 404, and which are retiring. */
    bindRoutes(app: RoutedApp) {
      routesOf = (path) => allowedMethods(app, path);
      retiring = new Map();
      for (const route of app.routes) {
        const spec = contractOf(route.hooks?.detail);
        if (spec?.retiring) {
          retiring.set(`${route.method} ${route.path}`, retiringHeaders(spec.retiring));
        }
      }
    },
  });
}
