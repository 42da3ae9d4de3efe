import { addressLimitKey } from "@newsroom/shared/address-limit-key";
import type { Db } from "@newsroom/shared/db/index";
import {
  approvalDecisions,
  organizations,
  stories,
  storyVersions,
} from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import { isUuid } from "@newsroom/shared/ids";
import { errorAnswer, operation } from "@newsroom/shared/openapi/operation";
import type { RateLimitStore } from "@newsroom/shared/rate-limit";
import { type ApprovalDecisionOut, iso, StoryDetailOut } from "@newsroom/shared/records";
import { storyRecords } from "@newsroom/shared/story-records";
import { and, desc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { audit, personActor } from "../audit.ts";
import { transitionStory } from "../stories/service.ts";
import { findOAuthClient, type OAuthClientRow } from "./clients.ts";
import { exchangeAuthorizationCode } from "./codes.ts";
import { pollDevice, startDeviceAuthorization } from "./device.ts";
import { OAuthError } from "./errors.ts";
import { APPROVE_SCOPE, OAUTH_SCOPES } from "./secrets.ts";
import { checkAccessToken, refreshTokens, revokeToken, type TokenHolder } from "./tokens.ts";

/** What the authorization server's endpoints and the approval routes need. */
export interface OAuthApiDeps {
  db: Db;
  /** Counts device authorizations per client address; none (the OpenAPI build) counts nothing. */
  rateLimits?: RateLimitStore;
  /** APP_URL without a trailing slash: where the device page is. */
  appUrl: string;
  now: () => Date;
  kickRelay: () => void;
  scheduleMinLeadSeconds?: number;
}

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** The paths of the authorization server and of approvals through the API, in the workspace. */
export const OAUTH_API_PATHS = ["/oauth/token", "/oauth/device_authorization", "/oauth/revoke"];
const DECISION_PATH = /^\/v1\/stories\/[^/]+\/(?:approve|reject)$/;

/** Whether the workspace's public API (beside the web app) answers this path. */
export function isOAuthApiPath(path: string): boolean {
  return OAUTH_API_PATHS.includes(path) || DECISION_PATH.test(path);
}

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/**
 * The token, device authorization and revocation endpoints (form posts, RFC 6749 error JSON,
 * never cached), and `POST /v1/stories/{id}/approve` and `/reject` for a person's access token.
 */
export function createOAuthApi(deps: OAuthApiDeps) {
  const kit = httpKit("workspace-oauth");
  const app = new Elysia({ name: "workspace-oauth" })
    .use(kit)
    .post("/oauth/token", ({ request }) => oauthAnswer(() => token(deps, request)), {
      parse: "none",
    })
    .post(
      "/oauth/device_authorization",
      ({ request }) => oauthAnswer(() => deviceAuthorization(deps, request)),
      { parse: "none" },
    )
    .post(
      "/oauth/revoke",
      ({ request }) =>
        oauthAnswer(async () => {
          const form = await formOf(request);
          const client = await clientOf(deps.db, form);
          const given = form.get("token");
          if (!given) throw new OAuthError("invalid_request", "The token parameter is missing.");
          await revokeToken(deps.db, client, given, deps.now());
          return {};
        }),
      { parse: "none" },
    )
    .post(
      "/v1/stories/:id/approve",
      ({ request, params }) => decide(deps, request, params.id, "approve"),
      { parse: "none", detail: decisionOperation("approve") },
    )
    .post(
      "/v1/stories/:id/reject",
      ({ request, params }) => decide(deps, request, params.id, "reject"),
      { parse: "none", detail: decisionOperation("reject") },
    );
  kit.bindRoutes(app);
  return { app, handle: (request: Request) => app.handle(request) };
}

/** An endpoint's answer: JSON, never stored; an OAuthError as RFC 6749 §5.2 says. */
async function oauthAnswer(answer: () => Promise<object>): Promise<Response> {
  try {
    return Response.json(await answer(), { headers: NO_STORE });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const headers: Record<string, string> = { ...NO_STORE };
    if (error.status === 401) headers["www-authenticate"] = 'Basic realm="oauth"';
    if (error.status === 429) headers["retry-after"] = "600";
    return Response.json(error.toBody(), { status: error.status, headers });
  }
}

async function formOf(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded.");
  }
  const form = new URLSearchParams(await request.text());
  // RFC 6749 §3.2: a parameter sent twice makes the request invalid.
  const seen = new Set<string>();
  for (const name of form.keys()) {
    if (seen.has(name)) throw new OAuthError("invalid_request", `${name} is given twice.`);
    seen.add(name);
  }
  return form;
}

/** The public client the request names; a client secret or unknown id is `invalid_client`. */
async function clientOf(db: Db, form: URLSearchParams): Promise<OAuthClientRow> {
  const clientId = form.get("client_id");
  if (!clientId) throw new OAuthError("invalid_client", "The client_id parameter is missing.");
  const client = await findOAuthClient(db, clientId);
  if (!client) throw new OAuthError("invalid_client", "The client_id is unknown.");
  return client;
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError("invalid_request", `The ${name} parameter is missing.`);
  return value;
}

async function token(deps: OAuthApiDeps, request: Request) {
  const form = await formOf(request);
  const grantType = required(form, "grant_type");
  if (![DEVICE_GRANT, "authorization_code", "refresh_token"].includes(grantType)) {
    throw new OAuthError("unsupported_grant_type", `The grant type ${grantType} is not supported.`);
  }
  const client = await clientOf(deps.db, form);
  const now = deps.now();
  if (grantType === "refresh_token") {
    return refreshTokens(deps.db, client, required(form, "refresh_token"), now);
  }
  if (!client.grantTypes.includes(grantType as OAuthClientRow["grantTypes"][number])) {
    throw new OAuthError("unauthorized_client", "This application may not use this grant.");
  }
  if (grantType === DEVICE_GRANT) {
    return pollDevice(deps.db, client, required(form, "device_code"), now);
  }
  return exchangeAuthorizationCode(
    deps.db,
    {
      client,
      code: required(form, "code"),
      redirectUri: required(form, "redirect_uri"),
      codeVerifier: required(form, "code_verifier"),
    },
    now,
  );
}

/** Device authorizations one address may start in ten minutes: each is a row until swept. */
export const DEVICE_AUTHORIZATIONS_PER_ADDRESS = { limit: 30, windowSeconds: 600 };

async function deviceAuthorization(deps: OAuthApiDeps, request: Request) {
  if (deps.rateLimits) {
    const [count] = await deps.rateLimits.hit([
      {
        key: `oauth:device-start:${addressLimitKey(clientIpOf(request))}`,
        ...DEVICE_AUTHORIZATIONS_PER_ADDRESS,
      },
    ]);
    if ((count ?? 0) > DEVICE_AUTHORIZATIONS_PER_ADDRESS.limit) {
      throw new OAuthError(
        "slow_down",
        "Too many device authorizations from this address: wait ten minutes.",
        429,
      );
    }
  }
  const form = await formOf(request);
  const client = await clientOf(deps.db, form);
  const scope = form.get("scope") ?? APPROVE_SCOPE;
  if (!(OAUTH_SCOPES as readonly string[]).includes(scope)) {
    throw new OAuthError("invalid_scope", `The only scope is ${APPROVE_SCOPE}.`);
  }
  return startDeviceAuthorization(deps.db, client, scope, deps.appUrl, deps.now());
}

const MAX_NOTE = 2000;

/** The OpenAPI description of the approve and reject routes. */
function decisionOperation(action: "approve" | "reject") {
  const approve = action === "approve";
  return operation({
    operationId: approve ? "approveStory" : "rejectStory",
    summary: approve
      ? "Approve a story, as the person who allowed the application"
      : "Reject a story, with a note, as the person who allowed the application",
    description: `${
      approve
        ? "Moves a story in `review_required` to `approved` (its current version), as the workspace's Approve does."
        : "Moves a story in `review_required` to `rejected`; a note saying why is required."
    } The bearer is a person's OAuth access token (scope \`stories:approve\`), never an API key. At every call the person must still be a member who may decide approvals (owner, admin or approver) and the organization's owner must have turned approvals through the API on. The decision is recorded with \`actor_type\` \`person\` and the person's role; the same events as in the workspace follow.`,
    tags: ["Approvals"],
    status: "Live",
    oauthScope: "stories:approve",
    pathParameters: { id: t.String({ format: "uuid" }) },
    requestBody: {
      schema: approve
        ? t.Object({ note: t.Optional(t.String({ maxLength: MAX_NOTE })) })
        : t.Object({ note: t.String({ minLength: 1, maxLength: MAX_NOTE }) }),
      contentTypes: ["application/json"],
      example: approve ? { note: "Checked the figures." } : { note: "The quote needs a source." },
    },
    responses: {
      200: {
        description: "The story after the decision.",
        schema: StoryDetailOut,
        headers: ["Cache-Control"],
      },
      401: errorAnswer("No access token, or one unknown, expired or revoked (`unauthorized`).", [
        "WWW-Authenticate",
      ]),
      403: errorAnswer(
        "An API key (keys never approve), a person who may no longer decide approvals, or approvals through the API turned off by the owner (`forbidden`).",
      ),
      404: errorAnswer("No such story in the token's organization (`not_found`)."),
      409: errorAnswer("The story is not waiting for approval (`invalid_transition`)."),
      415: errorAnswer("A body that is not JSON (`unsupported_body`)."),
      422: errorAnswer("A rejection without a note, or a note too long (`validation_failed`)."),
    },
  });
}

/**
 * A person's approval decision through an application: the access token checked now (the
 * person still a member who may decide, the organization's switch on), the story the
 * organization's, the workspace's own transition.
 */
async function decide(
  deps: OAuthApiDeps,
  request: Request,
  storyId: string,
  action: "approve" | "reject",
): Promise<Response> {
  const holder = await tokenHolder(deps, request);
  const note = await noteOf(request);
  if (action === "reject" && !note) {
    throw new ApiError("validation_failed", "A rejection needs a note.", {
      fields: [{ field: "note", reason: "required", message: "Say why the story is rejected." }],
    });
  }
  const { grant, client, role } = holder;
  const [organization] = await deps.db
    .select({ enabled: organizations.apiApprovalsEnabled })
    .from(organizations)
    .where(eq(organizations.id, grant.organizationId));
  if (!organization?.enabled) {
    throw new ApiError(
      "forbidden",
      "Approvals through the API are off for this organization: its owner turns them on in the organization's settings.",
    );
  }
  if (!isUuid(storyId)) throw new ApiError("not_found", "No such story.");
  await transitionStory(
    deps.db,
    grant.organizationId,
    storyId.toLowerCase(),
    { action, note, actor_role: role },
    {
      withStoryWrite: (tx) =>
        audit(
          tx,
          grant.organizationId,
          `story.${action}`,
          storyId.toLowerCase(),
          `${personActor(grant.personId)} via oauth_client:${client.id}`,
        ),
      onEvent: deps.kickRelay,
      minLeadSeconds: deps.scheduleMinLeadSeconds,
    },
    { personId: grant.personId, oauthClientId: client.id },
  );
  const detail = await storyDetail(deps.db, grant.organizationId, storyId.toLowerCase());
  return Response.json(detail, { headers: { "cache-control": "private, no-store" } });
}

/**
 * The person behind the request's access token. An API key is refused here (403: keys read,
 * they never approve); a missing, unknown, expired or revoked token is 401, and a person who
 * may no longer decide approvals 403, at once.
 */
async function tokenHolder(deps: OAuthApiDeps, request: Request): Promise<TokenHolder> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  const invalid = (message: string) =>
    new ApiError("unauthorized", message, {
      headers: {
        "www-authenticate": `Bearer realm="approvals", scope="${APPROVE_SCOPE}", error="invalid_token"`,
      },
    });
  if (!match) {
    throw new ApiError(
      "unauthorized",
      "Send a person's access token as `Authorization: Bearer <token>` (OAuth, scope stories:approve).",
      { headers: { "www-authenticate": `Bearer realm="approvals", scope="${APPROVE_SCOPE}"` } },
    );
  }
  const presented = match[1]!;
  if (presented.startsWith("armk_")) {
    throw new ApiError(
      "forbidden",
      "API keys cannot approve or reject: a person allows an application through OAuth (scope stories:approve), and its access token decides.",
    );
  }
  const check = await checkAccessToken(deps.db, presented, deps.now());
  if (check.ok) return check.holder;
  if (check.reason === "not_approver") {
    throw new ApiError(
      "forbidden",
      "The person who allowed this application may no longer decide approvals in the organization.",
    );
  }
  throw invalid("The access token is unknown, expired or revoked.");
}

async function noteOf(request: Request): Promise<string | null> {
  const text = await request.text();
  if (!text.trim()) return null;
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().includes("json")) {
    throw new ApiError("unsupported_body", 'The body is JSON: `{ "note": "…" }`.');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError("validation_failed", "The body is a JSON object.", {
      fields: [{ field: "body", reason: "invalid" }],
    });
  }
  const note = (body as { note?: unknown }).note;
  if (note === undefined || note === null) return null;
  if (typeof note !== "string" || note.length > MAX_NOTE) {
    throw new ApiError("validation_failed", "The note is a string of at most 2000 characters.", {
      fields: [{ field: "note", reason: "invalid" }],
    });
  }
  return note.trim() || null;
}

/** The StoryDetail record, as the client API answers it: the story, its body, its decisions. */
export async function storyDetail(
  db: Db,
  organizationId: string,
  storyId: string,
): Promise<StoryDetailOut> {
  const [row] = await db
    .select()
    .from(stories)
    .where(and(eq(stories.organizationId, organizationId), eq(stories.id, storyId)));
  if (!row) throw new ApiError("not_found", "No such story.");
  const [[record], [version], decisions] = await Promise.all([
    storyRecords(db, organizationId, [row]),
    row.currentVersion === null
      ? Promise.resolve([])
      : db
          .select({ body: storyVersions.body })
          .from(storyVersions)
          .where(
            and(eq(storyVersions.storyId, row.id), eq(storyVersions.version, row.currentVersion)),
          ),
    db
      .select()
      .from(approvalDecisions)
      .where(
        and(
          eq(approvalDecisions.organizationId, organizationId),
          eq(approvalDecisions.storyId, row.id),
          eq(approvalDecisions.actorType, "person"),
        ),
      )
      .orderBy(desc(approvalDecisions.decidedAt), desc(approvalDecisions.id)),
  ]);
  const approvals: ApprovalDecisionOut[] = decisions.map((decision) => ({
    object: "approval_decision",
    id: decision.id,
    version: decision.version,
    decision: decision.decision,
    actor_type: decision.actorType,
    actor_role: decision.actorRole,
    note: decision.note,
    decided_at: iso(decision.decidedAt)!,
  }));
  return {
    ...record!,
    body: (version?.body as Record<string, unknown>[] | undefined) ?? [],
    approvals,
  };
}
