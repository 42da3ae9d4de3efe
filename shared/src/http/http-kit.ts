import { Elysia } from "elysia";
import type { ApiError } from "../errors.ts";
import { contractOf, retiringHeaders } from "../openapi/operation.ts";
import { allowedMethods, type RoutedApp } from "./allowed-methods.ts";
import { answerObserver } from "./answer-observer.ts";
import { type ElysiaError, errorResponse, toApiError } from "./error-response.ts";
import { noteRepeated, queryNamesOf, refuseRepeated } from "./repeated-query.ts";
import { contextOf, knownContextOf, requestIdOf } from "./request-context.ts";
import { asGet, pathOf } from "./urls.ts";

/**
 * An answer an app finds before its router: the route template it counts under (its metrics,
 * logs and retiring headers), and the answer.
 */
export interface EarlyAnswer {
  route: string;
  respond: () => Response | Promise<Response>;
}

/** Finds the answer to a request before routing, or nothing (the router takes it). */
export type EarlyRouter = (request: Request) => EarlyAnswer | null | undefined;

export type ErrorRenderer = (
  thrown: unknown,
  request: Request,
  failure: () => ApiError,
) => Response | undefined;

export interface HttpKitOptions {
  /**
   * The app's one early-answer path, asked before the router from the kit's `onRequest` hook
   * (Elysia answers with what that hook returns and skips routing): what a path router cannot
   * say, like a client's hostname, or an answer found without routing. Its answers get what
   * routed ones get: the route for metrics and logs, retiring headers, `headers`, the error
   * record (a throw goes to the kit's `onError`), the answer observer.
   */
  earlyAnswer?: EarlyRouter;
  /** Headers every answer of the app carries, errors included, unless the answer sets its own. */
  headers?: Record<string, string>;
  /**
   * How the app shows a failure to a person instead of the Error record: a page, a redirect.
   * Given what was thrown and, when asked, the failure as an ApiError (made once, logged once);
   * nothing returned means the Error record. The one place an app's errors become answers.
   */
  renderError?: ErrorRenderer;
}

/**
 * The error handling every app shares: one Error record per failure, the request id in the body,
 * 405 for a known path with another method, never a stack trace. Routes marked retiring in their
 * `operation()` answer with `Deprecation` and `Sunset`. An answer observer installed before the
 * app is built (the test run's contract recorder) sees every answer; without one there is no
 * hook for it.
 */
export function httpKit(name: string, options: HttpKitOptions = {}) {
  const observe = answerObserver();
  let routesOf: (path: string) => string[] = () => [];
  let retiring = new Map<string, Record<string, string>>();
  let queryNames = new Map<string, string[]>();
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
      if (queryNames.size > 0) {
        const method = request.method === "HEAD" ? "GET" : request.method;
        noteRepeated(request, queryNames.get(`${method} ${route}`));
      }
    })
    // After validation: a repeated parameter is refused also when every value was valid.
    .onBeforeHandle({ as: "global" }, ({ request }) => {
      refuseRepeated(request);
    })
    .onError({ as: "global" }, ({ error, request, set }) => {
      const allowed = (error as ElysiaError)?.code === "NOT_FOUND" ? allowedOn(request) : [];
      const response = failureAnswer(error, request, allowed);
      const route = knownContextOf(request)?.route;
      for (const header of ["deprecation", "sunset", "link"]) {
        const value = set.headers[header];
        if (route && typeof value === "string") response.headers.set(header, value);
      }
      return response;
    });
  /**
   * The methods a path answers, for 405 and `Allow`: the router's, or GET and HEAD where the
   * early-answer path answers a GET (robots.txt, feeds, a client's hostname). HEAD is answered
   * as GET by the edge, and OPTIONS is refused like any other method a path does not answer.
   */
  const allowedOn = (request: Request): string[] => {
    const routed = routesOf(pathOf(request.url));
    if (routed.length > 0 || !options.earlyAnswer || request.method === "GET") return routed;
    return options.earlyAnswer(asGet(request)) ? ["GET", "HEAD"] : [];
  };
  /** What a throw becomes: the app's own rendering, else the Error record. */
  const failureAnswer = (error: unknown, request: Request, allowed: string[]): Response => {
    let failure: ApiError | undefined;
    const failureOf = () => {
      failure ??= toApiError(error, request, allowed);
      return failure;
    };
    return (
      options.renderError?.(error, request, failureOf) ??
      errorResponse(failureOf(), requestIdOf(request))
    );
  };
  const appHeaders = Object.entries(options.headers ?? {});
  if (appHeaders.length > 0) {
    kit.onRequest(({ set }) => {
      for (const [header, value] of appHeaders) set.headers[header] = value;
    });
  }
  const findEarly = options.earlyAnswer;
  if (findEarly) {
    // After the app's headers: Elysia adds `set.headers` to the answer returned here, as to a
    // routed one, and hands a throw to the kit's onError. The hooks of routing (transform,
    // mapResponse) do not run for it: the route is noted and the observer told here.
    kit.onRequest(async ({ request, set }) => {
      const early = findEarly(request);
      if (!early) return;
      const retiringHeaders = routed(request, early.route);
      if (retiringHeaders) Object.assign(set.headers, retiringHeaders);
      const response = await early.respond();
      observe?.(name, request.method, early.route, response.status, response);
      return response;
    });
  }
  if (observe) {
    kit.mapResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      observe(name, request.method, route, status, responseValue);
    });
  }
  return Object.assign(kit, {
    /** Tells the kit the app's routes: they decide 405 versus 404, and which are retiring. */
    bindRoutes(app: RoutedApp) {
      routesOf = (path) => allowedMethods(app, path);
      retiring = new Map();
      queryNames = queryNamesOf(app.routes);
      for (const route of app.routes) {
        const spec = contractOf(route.hooks?.detail);
        if (spec?.retiring) {
          retiring.set(`${route.method} ${route.path}`, retiringHeaders(spec.retiring));
        }
      }
    },
  });
}
