import { checkTarget, describeRange, type HostResolver } from "../delivery/target-guard.ts";

/** How a connector reaches a client's CMS: the webhook endpoints' SSRF rules, the same switch. */
export interface CmsHttpOptions {
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http and the address 127.0.0.1 (tests only). */
  allowInsecureTargets: boolean;
  resolve?: HostResolver;
  /** Per request (default 30 s: an image upload can take a while). */
  timeoutMs?: number;
}

export const CMS_USER_AGENT = "Armage-CMS-Writer/1";
const DEFAULT_TIMEOUT_MS = 30_000;
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ConnectionRefused", "EHOSTUNREACH", "ENETUNREACH"]);

/** The CMS could not be reached at all: worth retrying, and said so in plain words. */
export class CmsUnreachable extends Error {}

export interface CmsRequest {
  method: string;
  headers?: HeadersInit;
  body?: BodyInit | Uint8Array | null;
  /** The caller's own deadline, besides this one's. */
  signal?: AbortSignal | null;
}

/**
 * One request to a client's CMS through the target guard (`checkTarget`): a name that resolves
 * to a loopback, private or otherwise non-public address is refused before anything is sent,
 * the request goes to the checked address itself (original `Host` and TLS name), and no redirect
 * is followed. Throws `CmsUnreachable` with a plain reason when nothing answered.
 */
export async function cmsFetch(
  url: string,
  request: CmsRequest,
  options: CmsHttpOptions,
): Promise<Response> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = request.signal
    ? AbortSignal.any([AbortSignal.timeout(timeoutMs), request.signal])
    : AbortSignal.timeout(timeoutMs);
  let checked: Awaited<ReturnType<typeof checkTarget>>;
  try {
    checked = await checkTarget(url, {
      allowInsecureTargets: options.allowInsecureTargets,
      resolve: options.resolve,
      signal,
    });
  } catch {
    throw new CmsUnreachable(`The site did not answer within ${timeoutMs / 1000} seconds.`);
  }
  if (!checked.ok) {
    const refusal = checked.refusal;
    const why =
      refusal.reason === "host-not-found"
        ? "The site's host name does not exist."
        : refusal.reason === "address"
          ? `The site's host name leads to ${describeRange(refusal.range)}, which is not allowed.`
          : refusal.reason === "https-required"
            ? "The site must be reached over https."
            : "The site's address is not allowed.";
    throw new CmsUnreachable(why);
  }
  const { target } = checked;
  const headers = new Headers(request.headers);
  if (!headers.has("user-agent")) headers.set("user-agent", CMS_USER_AGENT);
  headers.set("host", target.host);
  for (const [index, address] of target.urls.entries()) {
    try {
      return await fetch(address, {
        method: request.method,
        headers,
        body: request.body as BodyInit | undefined,
        redirect: "manual",
        proxy: false,
        tls: target.serverName ? { serverName: target.serverName } : undefined,
        signal,
      } as RequestInit);
    } catch (error) {
      const code = String((error as { code?: unknown } | null)?.code ?? "");
      if (NOT_CONNECTED.has(code) && index < target.urls.length - 1) continue;
      if (signal.aborted) {
        throw new CmsUnreachable(`The site did not answer within ${timeoutMs / 1000} seconds.`);
      }
      if (NOT_CONNECTED.has(code)) throw new CmsUnreachable("The site refused the connection.");
      if (/CERT|TLS|SSL/i.test(code)) {
        throw new CmsUnreachable("The site's TLS certificate was not accepted.");
      }
      throw new CmsUnreachable(`The site could not be reached (${code || "network error"}).`);
    }
  }
  throw new CmsUnreachable("The site refused the connection.");
}
