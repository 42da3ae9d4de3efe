import type { Config } from "@newsroom/shared/config";
import { ApiError, UNAVAILABLE_CODES } from "@newsroom/shared/errors";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { ANSWER_ORGANIZATION_HEADER } from "@newsroom/shared/http/public-answers";
import { withHeader, withoutHeader } from "@newsroom/shared/http/service-headers";
import { pathOf, targetOf } from "@newsroom/shared/http/urls";
import { operation } from "@newsroom/shared/openapi/operation";
import { MemoryRateLimitStore, type RateLimitStore } from "@newsroom/shared/rate-limit";
import { type ReadinessCheck, readiness, readinessResponse } from "@newsroom/shared/service";
import { SERVICE_VERSION } from "@newsroom/shared/version";
import { Elysia, t } from "elysia";
import type { PublicAnswerCache } from "./answer-cache.ts";
import { docsRoutes } from "./docs.ts";
import { indexPage } from "./index-page.ts";
import { enforceClientApiLimits, enforcePublicLimits, RATE_LIMIT_POLICY } from "./rate-limits.ts";
import { GATEWAY_PATHS, type ServiceName, serviceForRequest } from "./routing.ts";
import { type Upstream, UpstreamUnavailable } from "./upstream.ts";

export interface GatewayOptions {
  config: Pick<
    Config,
    | "DATABASE_URL"
    | "SERVICE_ENV"
    | "PUBLIC_RATE_LIMIT_PER_MINUTE"
    | "PUBLIC_BASE_URL"
    | "NEWSROOM_HOST"
    | "SES_ENDPOINT"
  >;
  upstreams: Partial<Record<ServiceName, Upstream>>;
  rateLimits: RateLimitStore;
  /** The public read limit's counters: this replica's own (see enforcePublicLimits). */
  publicReadLimits?: RateLimitStore;
  readinessChecks: ReadinessCheck[];
  /** "embedded" when the services are mounted in this process. */
  mode: "embedded" | "distributed";
  /**
   * Public answers kept here, with a bus to hear purges (NATS, or the embedded in-process bus);
   * none by default.
   */
  answerCache?: PublicAnswerCache;
}

/**
 * The gateway: every path a service answers handed to it before the router (`forward`), then
 * health and the API reference; 404 and 405 for the rest. Serve it through `edge()` so every
 * response carries the request id and the version.
 */
export function createGateway(given: GatewayOptions) {
  const options = {
    ...given,
    publicReadLimits: given.publicReadLimits ?? new MemoryRateLimitStore(),
  };
  // A path a service answers goes straight to it, before the router (which keeps the gateway's
  // own routes, 404 and 405): routing it again would cost a tenth of the hop. A public read the
  // answer cache holds is answered there and then.
  const kit = httpKit("gateway", {
    earlyAnswer: (request) => {
      const target = targetOf(request.url);
      const service = serviceOf(options, request, target);
      const upstream = service ? options.upstreams[service] : undefined;
      if (!service || !upstream) return null;
      return {
        route: "/*",
        respond: () =>
          keptAnswer(options, service, request, target) ??
          forward(options, service, upstream, request),
      };
    },
  });
  const ready = readinessResponse(readiness(options.readinessChecks));
  const { config } = options;
  const index = () =>
    indexPage({
      newsrooms: config.NEWSROOM_HOST,
      inbox:
        config.SERVICE_ENV === "development" && config.SES_ENDPOINT
          ? `${config.SES_ENDPOINT.replace(/\/$/, "")}/`
          : undefined,
    });
  const app = new Elysia({ name: "gateway" })
    .use(kit)
    .get(
      "/health",
      () => ({
        status: "ok" as const,
        version: SERVICE_VERSION,
        environment: options.config.SERVICE_ENV,
        mode: options.mode,
        database: options.config.DATABASE_URL ? "postgres" : "embedded",
        // Embedded mode always has PGlite; a gateway alone has a database only when told one.
        database_configured: options.mode === "embedded" || Boolean(options.config.DATABASE_URL),
      }),
      {
        detail: operation({
          operationId: "getHealth",
          summary: "Health: the service version and whether a database is configured",
          description:
            "Liveness: answers while the process runs, with its version, environment, mode and whether a database is configured. Never reads the database.",
          tags: ["Health"],
          status: "Live",
          responses: { 200: { description: "Up.", schema: HealthOut } },
        }),
      },
    )
    .get("/health/ready", () => ready(), {
      detail: operation({
        operationId: "getReadiness",
        summary: "Readiness: whether the database answers and the public read path works",
        description: "Cached 15 s per process.",
        tags: ["Health"],
        status: "Live",
        responses: {
          200: { description: "Ready.", schema: ReadinessOut, headers: ["Cache-Control"] },
          503: { description: "Not ready.", schema: ReadinessOut, headers: ["Cache-Control"] },
        },
      }),
    })
    .get(
      "/.well-known/oauth-authorization-server",
      ({ set }) => {
        set.headers["cache-control"] = "public, max-age=3600";
        return authorizationServerMetadata(options.config.PUBLIC_BASE_URL);
      },
      {
        detail: operation({
          operationId: "getAuthorizationServerMetadata",
          summary: "The OAuth 2.0 authorization server's metadata (RFC 8414)",
          description:
            "Where applications get a person's access token for approvals through the API: the authorization code grant with PKCE (S256) and the device authorization grant (RFC 8628), token revocation (RFC 7009). Public clients, scope `stories:approve`.",
          tags: ["Approvals"],
          status: "Live",
          responses: {
            200: {
              description: "The metadata.",
              schema: AuthorizationServerMetadataOut,
              headers: ["Cache-Control"],
            },
          },
        }),
      },
    )
    .get("/", index)
    .use(docsRoutes)
    .all("/*", ({ request }) => refuse(request), { parse: "none" });
  kit.bindRoutes(app);
  return {
    app,
    routes: app.routes,
    /**
     * The one way in: Elysia's own handler (its `fetch`, which `handle` wraps in one more
     * promise), so a kept answer, a service's path and the gateway's own routes all go through
     * the kit's hooks.
     */
    handle: app.fetch,
  };
}

/**
 * The kept answer to a public read, if the answer cache holds one. It costs no limit: the public
 * read limit guards the reads that reach public-read (see `enforcePublicLimits`), and finding
 * the client's address would cost a kept answer an eighth of its throughput.
 */
function keptAnswer(
  options: GatewayOptions,
  service: ServiceName,
  request: Request,
  target: string,
): Response | undefined {
  if (!options.answerCache || service !== "public-read" || request.method !== "GET") return;
  return options.answerCache.lookup(request, target);
}

/**
 * The service a request goes to: by its path, or a newsroom page by its path and host. `target`
 * is the request's path and query, when the caller has it already.
 */
function serviceOf(
  options: GatewayOptions,
  request: Request,
  target = targetOf(request.url),
): ServiceName | null {
  return serviceForRequest(pathOf(target), request.headers.get("host"), options.config);
}

/**
 * The OAuth 2.0 authorization server's metadata (RFC 8414): the workspace issues tokens for
 * approvals through the API, at these addresses under PUBLIC_BASE_URL.
 */
export function authorizationServerMetadata(publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/+$/, "");
  return {
    issuer: base,
    authorization_endpoint: `${base}/app/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    device_authorization_endpoint: `${base}/oauth/device_authorization`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ["code"],
    grant_types_supported: [
      "authorization_code",
      "refresh_token",
      "urn:ietf:params:oauth:grant-type:device_code",
    ],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["stories:approve"],
  };
}

const AuthorizationServerMetadataOut = t.Object(
  {
    issuer: t.String(),
    authorization_endpoint: t.String(),
    token_endpoint: t.String(),
    device_authorization_endpoint: t.String(),
    revocation_endpoint: t.String(),
    response_types_supported: t.Array(t.String()),
    grant_types_supported: t.Array(t.String()),
    code_challenge_methods_supported: t.Array(t.String()),
    token_endpoint_auth_methods_supported: t.Array(t.String()),
    revocation_endpoint_auth_methods_supported: t.Array(t.String()),
    scopes_supported: t.Array(t.String()),
  },
  { additionalProperties: true },
);

const HealthOut = t.Object(
  {
    status: t.Literal("ok"),
    version: t.String(),
    environment: t.String(),
    mode: t.String(),
    database: t.String(),
    database_configured: t.Boolean(),
  },
  { additionalProperties: true },
);

const ReadinessOut = t.Object(
  {
    status: t.Union([t.Literal("ready"), t.Literal("not_ready")]),
    checks: t.Record(t.String(), t.Union([t.Literal("ok"), t.Literal("failing")])),
  },
  { additionalProperties: true },
);

/**
 * A path no service answers (those went on before the router): 405 for the gateway's own paths
 * with another method, else 404.
 */
function refuse(request: Request): never {
  if (GATEWAY_PATHS.includes(pathOf(request.url))) {
    throw new ApiError("method_not_allowed", undefined, { headers: { allow: "GET, HEAD" } });
  }
  throw new ApiError("not_found", "No route matches this path.");
}

/**
 * Hands the request to its service: its limits first, 503 if it is unreachable. A public read
 * the answer cache did not answer (`keptAnswer`) may be kept on its way back.
 */
async function forward(
  options: GatewayOptions,
  service: ServiceName,
  upstream: Upstream,
  request: Request,
): Promise<Response> {
  if (service === "client-api") await enforceClientApiLimits(options.rateLimits, request);
  if (service === "public-read") {
    // Public reads pick a client's pages by the host the gateway routed on, never by an
    // X-Forwarded-Host the client sent (httpUpstream sets the same for a remote service).
    const host = request.headers.get("host");
    if (host) request.headers.set("x-forwarded-host", host);
    else request.headers.delete("x-forwarded-host");
    const perMinute = options.config.PUBLIC_RATE_LIMIT_PER_MINUTE;
    await enforcePublicLimits(
      { perReplica: options.publicReadLimits ?? options.rateLimits, shared: options.rateLimits },
      request,
      perMinute,
    );
  }
  const miss = service === "public-read" ? options.answerCache?.begin(request) : undefined;
  let response: Response;
  try {
    response = await upstream(request);
  } catch (error) {
    if (error instanceof UpstreamUnavailable) {
      throw new ApiError(UNAVAILABLE_CODES[service], undefined, {
        headers: {
          "retry-after": "60",
          "cache-control": service === "client-api" ? "private, no-store" : "no-store",
        },
      });
    }
    throw error;
  }
  if (service === "public-read") {
    if (miss && options.answerCache) return options.answerCache.keep(request, response, miss);
    return withoutHeader(response, ANSWER_ORGANIZATION_HEADER);
  }
  if (service === "client-api" && response.status < 300) {
    return withHeader(response, "ratelimit-policy", RATE_LIMIT_POLICY);
  }
  return response;
}
