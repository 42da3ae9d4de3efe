import { invalidParameters } from "../errors.ts";
import { singleValuedNames } from "../parameter-schemas.ts";
import { contextOf, knownContextOf } from "./request-context.ts";

/** A route as Elysia lists it: its hooks hold its `query` schema, if it has one. */
type QueryRoute = { method: string; path: string; hooks?: object };

/** Each route's single-valued query parameters, keyed `METHOD /path/:template`. */
export function queryNamesOf(routes: readonly QueryRoute[]): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const route of routes) {
    const single = singleValuedNames((route.hooks as { query?: unknown } | undefined)?.query);
    if (single.length > 0) names.set(`${route.method.toUpperCase()} ${route.path}`, single);
  }
  return names;
}

/**
 * Notes the parameters of the route's query schema given more than once (`?type=a&type=b` is
 * ambiguous). Elysia keeps the last value and validates it; the refusal names them beside every
 * other bad parameter (`toApiError`), or alone when the rest is valid (`refuseRepeated`).
 */
export function noteRepeated(request: Request, names: readonly string[] | undefined): void {
  if (!names) return;
  const url = request.url;
  const at = url.indexOf("?");
  if (at === -1) return;
  const search = new URLSearchParams(url.slice(at + 1));
  const repeated = names
    .filter((name) => search.getAll(name).length > 1)
    .map((field) => ({ field, reason: "repeated", message: "Give this parameter once." }));
  if (repeated.length > 0) contextOf(request).query = { names: [...names], repeated };
}

/** 400 invalid_parameters when a parameter was given more than once and all else was valid. */
export function refuseRepeated(request: Request): void {
  const repeated = knownContextOf(request)?.query?.repeated;
  if (repeated && repeated.length > 0) throw invalidParameters(repeated);
}
