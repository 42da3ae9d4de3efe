/**
 * A small HTTP server on 127.0.0.1 that answers `GET /v1/checkout/sessions/{id}` the way
 * Stripe's API does: bearer-key check, `expand[]` of line items, Stripe's error bodies.
 */
export interface FakeStripe {
  url: string;
  key: string;
  /** Every request seen: method, path, query and authorization header. */
  requests: {
    method: string;
    path: string;
    query: URLSearchParams;
    authorization: string | null;
  }[];
  sessions: Map<string, Record<string, unknown>>;
  /** Session ids answered with a 500 api_error. */
  failing: Set<string>;
  stop(): Promise<void>;
}

function stripeError(status: number, type: string, message: string, extra = {}) {
  return Response.json(
    { error: { type, message, ...extra } },
    { status, headers: { "request-id": `req_${crypto.randomUUID().slice(0, 14)}` } },
  );
}

export function startFakeStripe(key = "sk_test_fake_public_read"): FakeStripe {
  const sessions = new Map<string, Record<string, unknown>>();
  const failing = new Set<string>();
  const requests: FakeStripe["requests"] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      const authorization = request.headers.get("authorization");
      requests.push({
        method: request.method,
        path: url.pathname,
        query: url.searchParams,
        authorization,
      });
      if (authorization !== `Bearer ${key}`) {
        return stripeError(401, "invalid_request_error", "Invalid API Key provided: sk_test_****");
      }
      const match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (request.method !== "GET" || !match) {
        return stripeError(
          404,
          "invalid_request_error",
          `Unrecognized request URL (${request.method}: ${url.pathname}).`,
        );
      }
      const id = decodeURIComponent(match[1]!);
      if (failing.has(id))
        return stripeError(500, "api_error", "Something went wrong on Stripe's end.");
      const session = sessions.get(id);
      if (!session) {
        return stripeError(404, "invalid_request_error", `No such checkout.session: '${id}'`, {
          code: "resource_missing",
          param: "session",
        });
      }
      const expand = [...url.searchParams.entries()]
        .filter(([name]) => name === "expand[]" || /^expand\[\d+\]$/.test(name))
        .map(([, value]) => value);
      const { line_items, ...rest } = session;
      const body =
        expand.some((path) => path.startsWith("line_items")) && line_items
          ? { ...rest, line_items }
          : rest;
      return Response.json(body);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    key,
    requests,
    sessions,
    failing,
    stop: () => server.stop(true),
  };
}

/** A checkout session as Stripe returns it, with line items for one recurring price. */
export function subscriptionSession(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    object: "checkout.session",
    amount_subtotal: 4900,
    amount_total: 4900,
    client_reference_id: "org_internal_reference",
    currency: "eur",
    customer: "cus_Q1w2e3r4t5",
    customer_details: { email: "buyer@example.com", name: "Pat Buyer", phone: null },
    customer_email: "buyer@example.com",
    livemode: false,
    metadata: {},
    mode: "subscription",
    payment_intent: null,
    payment_status: "paid",
    status: "complete",
    subscription: "sub_1A2b3C4d",
    url: null,
    line_items: {
      object: "list",
      data: [
        {
          id: "li_1Pz",
          object: "item",
          amount_subtotal: 4900,
          amount_total: 4900,
          currency: "eur",
          description: "Newsroom Pro",
          quantity: 1,
          price: {
            id: "price_1Nx",
            object: "price",
            active: true,
            currency: "eur",
            lookup_key: "newsroom-pro-monthly",
            nickname: null,
            product: { id: "prod_Nw", object: "product", name: "Newsroom Pro", active: true },
            recurring: { interval: "month", interval_count: 1, usage_type: "licensed" },
            type: "recurring",
            unit_amount: 4900,
          },
        },
      ],
      has_more: false,
      url: `/v1/checkout/sessions/${id}/line_items`,
    },
    ...overrides,
  };
}
