import { ApiError } from "@newsroom/shared/errors";
import { SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from "@newsroom/shared/events";
import { NAME_MAX_LENGTH } from "@newsroom/shared/records";
import {
  ENDPOINT_ORDERINGS,
  EndpointAuthIn,
  EndpointCreateIn,
  type EndpointOrdering,
  MAX_RATE_LIMIT_PER_SECOND,
} from "@newsroom/shared/webhook-endpoint-commands";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { personActor } from "../../audit.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { PermissionAction } from "../../identity/members/permissions.ts";
import { can } from "../../identity/members/permissions.ts";
import {
  changeEndpoint,
  createEndpoint,
  deliveriesPerHour,
  endpointOrganization,
  getEndpoint,
  listEndpointDeliveries,
  listEndpoints,
  rotateEndpointSecret,
  testEndpoint,
  updateEndpointOptions,
} from "../../webhook-endpoints/commands.ts";
import { chartSince } from "../delivery-chart.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { isFreshSignIn, requireFreshSignIn } from "../fresh-sign-in.ts";
import type { FormFields, SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import {
  type EndpointFormState,
  endpointOptionsPage,
  endpointPage,
  endpointsPage,
  newEndpointPage,
  rotatedSecretPage,
  type TestedOutcome,
} from "../pages/webhook-endpoints.ts";
import { allowOwnScripts } from "../secret-once.ts";

const DELIVERY_LOG_LENGTH = 50;

/**
 * The form's rate and order, as the create command takes them, and what is wrong with them
 * beside their fields. An empty rate is no limit; no choice of order is `none`.
 */
function pacingOf(form: FormFields): {
  rate: number | null;
  rateText: string;
  ordering: string;
  errors: EndpointFormState["errors"];
} {
  const rateText = form.text("rate_limit_per_second", 20);
  const ordering = form.text("ordering", 20) || "none";
  const errors: NonNullable<EndpointFormState["errors"]> = {};
  const rate = rateText === "" ? null : Number(rateText);
  if (
    rate !== null &&
    (!/^\d+$/.test(rateText) ||
      !Value.Check(EndpointCreateIn.properties.rate_limit_per_second, rate))
  ) {
    errors.rate_limit_per_second = `Enter a whole number from 1 to ${MAX_RATE_LIMIT_PER_SECOND}, or leave it empty.`;
  }
  if (!(ENDPOINT_ORDERINGS as readonly string[]).includes(ordering)) {
    errors.ordering = "Choose how each story's events are ordered.";
  }
  return { rate, rateText, ordering, errors };
}

/**
 * The form's authentication: the chosen kind's fields as the create command's `auth`, what was
 * typed (never the secrets) to show again, or what is missing.
 */
function authOf(form: FormFields): {
  value?: EndpointAuthIn;
  typed: NonNullable<EndpointFormState["auth"]>;
  error?: string;
} {
  const type = form.text("auth_type", 40) || "none";
  const typed = {
    type,
    headers: form.text("auth_headers", 10_000),
    tokenUrl: form.text("auth_token_url", 2048),
    clientId: form.text("auth_client_id", 1000),
    scope: form.text("auth_scope", 1000),
  };
  let value: unknown;
  if (type === "bearer") value = { type, token: form.text("auth_token", 4096) };
  if (type === "headers") {
    value = { type, headers: Object.fromEntries(parsePastedHeadersKeepingCase(typed.headers)) };
  }
  if (type === "oauth2_client_credentials") {
    value = {
      type,
      token_url: typed.tokenUrl,
      client_id: typed.clientId,
      client_secret: form.text("auth_client_secret", 4096),
      ...(typed.scope ? { scope: typed.scope } : {}),
    };
  }
  if (value === undefined) return { typed };
  if (!Value.Check(EndpointAuthIn, value)) {
    return { typed, error: "Fill in every field of the authentication you chose." };
  }
  return { value, typed };
}

/** `Name: value` lines as pairs, the names as typed; a line without a colon is left out. */
function parsePastedHeadersKeepingCase(text: string): [string, string][] {
  return text.split(/\r?\n/).flatMap((line): [string, string][] => {
    const at = line.indexOf(":");
    const name = at > 0 ? line.slice(0, at).trim() : "";
    return name ? [[name, line.slice(at + 1).trim()]] : [];
  });
}

/**
 * An organization's webhook endpoints: the list, adding one (the secret shown once), a page per
 * endpoint with its delivery log and chart, the test event, its rate and order, disabling,
 * enabling and deleting.
 * Every change needs a sign-in from the last 12 hours.
 */
export function webhookEndpointsWebRoutes(deps: WebDeps, kit: WebKit) {
  const listPath = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/webhook-endpoints`;
  const endpointPath = (id: string) => `/app/webhook-endpoints/${id}`;

  async function listPage(who: SignedInVisitor, access: OrgAccess, state?: EndpointFormState) {
    const endpoints = await listEndpoints(deps, access.organization.id);
    const needsCode = !isFreshSignIn(who.signedIn.session, deps.now());
    return endpointsPage(who, { access, endpoints, needsCode }, state);
  }

  /** The endpoint's organization, where the person must be allowed `action`; else 404 or 403. */
  async function endpointAccess(who: SignedInVisitor, id: string, action: PermissionAction) {
    return kit.permit(who, await endpointOrganization(deps, id), action);
  }

  /** A change to one endpoint: its permission, then a fresh sign-in, then the change. */
  function change(
    action: "test" | "disable" | "enable" | "delete",
    /** Does the change; answers the cookies its redirect sets, if any. */
    run: (access: OrgAccess, id: string, who: SignedInVisitor) => Promise<string[] | undefined>,
    after: (id: string, access: OrgAccess) => string,
    returnTo: (id: string) => string = endpointPath,
  ) {
    return async ({ request, params }: { request: Request; params: { id: string } }) => {
      const who = await kit.signedIn(request);
      await kit.form(request, who);
      const access = await endpointAccess(who, params.id, `endpoint.${action}`);
      requireFreshSignIn(who, deps.now(), returnTo(params.id));
      const cookies = await run(access, params.id, who);
      return kit.redirect(after(params.id, access), cookies);
    };
  }

  async function changed(
    access: OrgAccess,
    id: string,
    what: "disable" | "enable" | "delete",
    who: SignedInVisitor,
  ): Promise<undefined> {
    await changeEndpoint(
      deps,
      access.organization.id,
      id,
      what,
      personActor(who.signedIn.person.id),
    );
    return undefined;
  }

  /** The test event's outcome handed to this page by the test's redirect, once; null after. */
  function takeTestedOutcome(request: Request, who: SignedInVisitor, id: string) {
    const sealed = kit.shownOnce.take(
      request,
      who.signedIn.session.id,
      `endpoint-tested:${id}`,
      deps.now(),
    );
    if (sealed === null) return null;
    who.setCookies.push(kit.shownOnce.spent());
    return JSON.parse(sealed) as TestedOutcome;
  }

  return new Elysia()
    .get("/app/orgs/:org/webhook-endpoints", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "endpoint.create");
      return kit.page(who, await listPage(who, access));
    })
    .post(
      "/app/orgs/:org/webhook-endpoints",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await kit.permit(who, params.org, "endpoint.create");
        requireFreshSignIn(who, deps.now(), listPath(access));
        const url = form.text("url", 2048);
        const name = form.text("name", 1000);
        const events = [...new Set(form.all("events"))];
        const topicsText = form.text("topics", 6000);
        const topics = [
          ...new Set(
            topicsText
              .split(",")
              .map((slug) => slug.trim())
              .filter(Boolean),
          ),
        ];
        const auth = authOf(form);
        const pacing = pacingOf(form);
        const state: EndpointFormState = {
          url,
          name,
          events,
          topics: topicsText,
          auth: auth.typed,
          rateLimitPerSecond: pacing.rateText,
          ordering: pacing.ordering,
          errors: { ...pacing.errors },
        };
        if (auth.error) state.errors!.auth = auth.error;
        if (!url) state.errors!.url = "Enter the URL.";
        if (name.length > NAME_MAX_LENGTH) {
          state.errors!.name = `Keep the name to ${NAME_MAX_LENGTH} characters.`;
        }
        if (
          events.length === 0 ||
          events.some((type) => !SUBSCRIBABLE_EVENT_TYPES.includes(type as SubscribableEventType))
        ) {
          state.errors!.events = "Choose at least one event.";
        }
        if (topics.length > 0 && !Value.Check(EndpointCreateIn.properties.topics, topics)) {
          state.errors!.topics = "Name at most 50 topics, each slug up to 100 characters.";
        }
        if (Object.keys(state.errors!).length > 0) {
          return kit.page(who, await listPage(who, access, state), 422);
        }
        try {
          const { secret, ...endpoint } = await createEndpoint(
            deps,
            access.organization.id,
            {
              url,
              ...(name ? { name } : {}),
              events: events as SubscribableEventType[],
              ...(topics.length > 0 ? { topics } : {}),
              ...(auth.value ? { auth: auth.value } : {}),
              ...(pacing.rate !== null ? { rate_limit_per_second: pacing.rate } : {}),
              ordering: pacing.ordering as EndpointOrdering,
            },
            personActor(who.signedIn.person.id),
          );
          const subject = `endpoint:${endpoint.id}`;
          const handed = kit.shownOnce.handOver(
            who.signedIn.session.id,
            subject,
            secret,
            deps.now(),
          );
          return kit.redirect(`${endpointPath(endpoint.id)}/created`, [handed]);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.code === "validation_failed") {
            const [first] = error.fields ?? [];
            const which = first?.field.startsWith("auth")
              ? "auth"
              : first?.field === "rate_limit_per_second" || first?.field === "ordering"
                ? first.field
                : "url";
            state.errors![which] = first?.message ?? error.message;
            return kit.page(who, await listPage(who, access, state), 422);
          }
          if (error.code !== "limit_reached") throw error;
          state.problem = `${error.message} Delete one first. Nothing was added.`;
          return kit.page(who, await listPage(who, access, state), 409);
        }
      },
      { parse: "none" },
    )
    .get("/app/webhook-endpoints/:id", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await endpointAccess(who, params.id, "endpoint.create");
      const orgId = access.organization.id;
      const now = deps.now();
      const [endpoint, deliveries, counts] = await Promise.all([
        getEndpoint(deps, orgId, params.id),
        listEndpointDeliveries(deps, orgId, params.id, DELIVERY_LOG_LENGTH),
        deliveriesPerHour(deps, orgId, params.id, chartSince(now)),
      ]);
      const tested = takeTestedOutcome(request, who, params.id);
      const page = endpointPage(who, {
        access,
        endpoint,
        deliveries,
        counts,
        now,
        may: {
          test: can(access.role, "endpoint.test"),
          disable: can(access.role, "endpoint.disable"),
          enable: can(access.role, "endpoint.enable"),
          delete: can(access.role, "endpoint.delete"),
          rotate: can(access.role, "endpoint.create"),
        },
        needsCode: !isFreshSignIn(who.signedIn.session, now),
        tested,
      });
      return kit.page(who, page);
    })
    .get("/app/webhook-endpoints/:id/created", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await endpointAccess(who, params.id, "endpoint.create");
      const endpoint = await getEndpoint(deps, access.organization.id, params.id);
      const session = who.signedIn.session.id;
      const secret = kit.shownOnce.take(request, session, `endpoint:${endpoint.id}`, deps.now());
      who.setCookies.push(kit.shownOnce.spent());
      return allowOwnScripts(kit.page(who, newEndpointPage(who, access, endpoint, secret)));
    })
    .post(
      "/app/webhook-endpoints/:id/test",
      change(
        "test",
        async (access, id, who) => {
          const { test } = await testEndpoint(deps, access.organization.id, id);
          const outcome: TestedOutcome = {
            status: test.status,
            status_code: test.status_code ?? null,
            duration_ms: test.duration_ms,
            error: test.error?.slice(0, 200) ?? null,
          };
          // The outcome rides to the endpoint's page sealed and bound to this session, as a
          // shown-once secret does: an address someone else made cannot show a made-up one.
          const subject = `endpoint-tested:${id}`;
          const sealed = JSON.stringify(outcome);
          return [kit.shownOnce.handOver(who.signedIn.session.id, subject, sealed, deps.now())];
        },
        (id) => endpointPath(id),
      ),
      { parse: "none" },
    )
    .post(
      "/app/webhook-endpoints/:id/rotate-secret",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        await kit.form(request, who);
        // Rotating hands out a secret, as adding an endpoint does: the same permission.
        const access = await endpointAccess(who, params.id, "endpoint.create");
        requireFreshSignIn(who, deps.now(), endpointPath(params.id));
        const { secret, id } = await rotateEndpointSecret(
          deps,
          access.organization.id,
          params.id,
          personActor(who.signedIn.person.id),
        );
        // As with a creation: the new secret is shown once on the page this leads to, so a
        // reload of that page shows it no more and never rotates again.
        const handed = kit.shownOnce.handOver(
          who.signedIn.session.id,
          `endpoint-rotated:${id}`,
          secret,
          deps.now(),
        );
        return kit.redirect(`${endpointPath(id)}/rotated`, [handed]);
      },
      { parse: "none" },
    )
    .get("/app/webhook-endpoints/:id/rotated", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await endpointAccess(who, params.id, "endpoint.create");
      const endpoint = await getEndpoint(deps, access.organization.id, params.id);
      const session = who.signedIn.session.id;
      const subject = `endpoint-rotated:${endpoint.id}`;
      const secret = kit.shownOnce.take(request, session, subject, deps.now());
      who.setCookies.push(kit.shownOnce.spent());
      return allowOwnScripts(kit.page(who, rotatedSecretPage(who, access, endpoint, secret)));
    })
    .get("/app/webhook-endpoints/:id/options", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await endpointAccess(who, params.id, "endpoint.create");
      const endpoint = await getEndpoint(deps, access.organization.id, params.id);
      const state: EndpointFormState = {
        rateLimitPerSecond: endpoint.rate_limit_per_second?.toString() ?? "",
        ordering: endpoint.ordering,
      };
      const needsCode = !isFreshSignIn(who.signedIn.session, deps.now());
      return kit.page(who, endpointOptionsPage(who, access, endpoint, state, needsCode));
    })
    .post(
      "/app/webhook-endpoints/:id/options",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await endpointAccess(who, params.id, "endpoint.create");
        const optionsPath = `${endpointPath(params.id)}/options`;
        requireFreshSignIn(who, deps.now(), optionsPath);
        const pacing = pacingOf(form);
        const state: EndpointFormState = {
          rateLimitPerSecond: pacing.rateText,
          ordering: pacing.ordering,
          errors: pacing.errors,
        };
        const refused = async () =>
          kit.page(
            who,
            endpointOptionsPage(
              who,
              access,
              await getEndpoint(deps, access.organization.id, params.id),
              state,
              false,
            ),
            422,
          );
        if (Object.keys(pacing.errors ?? {}).length > 0) return refused();
        try {
          await updateEndpointOptions(
            deps,
            access.organization.id,
            params.id,
            { rate_limit_per_second: pacing.rate, ordering: pacing.ordering as EndpointOrdering },
            personActor(who.signedIn.person.id),
          );
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== "validation_failed") throw error;
          const [first] = error.fields ?? [];
          const field = first?.field === "ordering" ? "ordering" : "rate_limit_per_second";
          state.errors = { [field]: first?.message ?? error.message };
          return refused();
        }
        return kit.redirect(withDone(endpointPath(params.id), "endpoint-options-changed"));
      },
      { parse: "none" },
    )
    .post(
      "/app/webhook-endpoints/:id/disable",
      change(
        "disable",
        (access, id, who) => changed(access, id, "disable", who),
        (id) => withDone(endpointPath(id), "endpoint-disabled"),
      ),
      { parse: "none" },
    )
    .post(
      "/app/webhook-endpoints/:id/enable",
      change(
        "enable",
        (access, id, who) => changed(access, id, "enable", who),
        // Enabled again: offer to resend what failed meanwhile.
        (id) => `${endpointPath(id)}/recover?enabled=1`,
      ),
      { parse: "none" },
    )
    .get("/app/webhook-endpoints/:id/delete", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await endpointAccess(who, params.id, "endpoint.delete");
      const endpoint = await getEndpoint(deps, access.organization.id, params.id);
      return kit.page(
        who,
        confirmPage(who, {
          title: "Delete this endpoint?",
          question: `Nothing more is sent to ${endpoint.url}, its pending deliveries are dropped and its delivery log is deleted with it. This cannot be undone.`,
          action: `${endpointPath(endpoint.id)}/delete`,
          button: "Delete endpoint",
          back: endpointPath(endpoint.id),
        }),
      );
    })
    .post(
      "/app/webhook-endpoints/:id/delete",
      change(
        "delete",
        (access, id, who) => changed(access, id, "delete", who),
        (_id, access) => withDone(listPath(access), "endpoint-deleted"),
        (id) => `${endpointPath(id)}/delete`,
      ),
      { parse: "none" },
    );
}
