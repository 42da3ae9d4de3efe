import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/** Resolves a host name to every address it has (IPv4 and IPv6), in the resolver's order. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** The system resolver (`getaddrinfo`, so /etc/hosts counts), every address. */
export const systemResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

export interface GuardOptions {
  /**
   * WEBHOOK_ALLOW_INSECURE_TARGETS: plain http, and the address 127.0.0.1 (written as such or as
   * `localhost`, which then means 127.0.0.1 without a lookup); development and tests only.
   */
  allowInsecureTargets: boolean;
  resolve?: HostResolver;
  /** Aborts a slow lookup (the attempt's timeout). */
  signal?: AbortSignal;
}

/** Where to connect: addresses that passed the check, and the names the request carries. */
export interface CheckedTarget {
  /** The URL to fetch for each checked address, in order: the address in place of the name. */
  urls: string[];
  /** The `Host` header: the URL's host (with its port when not the default). */
  host: string;
  /** The TLS server name (SNI and certificate check): the host name; absent for an IP. */
  serverName: string | undefined;
}

/**
 * Why a target was refused. It carries the range of a refused address, never the address:
 * what a name resolves to is the service's view of the network, not the tenant's to see.
 */
export type TargetRefusal =
  | { reason: "not-a-url" }
  | { reason: "scheme"; scheme: string }
  | { reason: "credentials" }
  | { reason: "https-required" }
  | { reason: "host-not-found" }
  | { reason: "lookup-failed"; code: string }
  | { reason: "address"; range: string; resolved: boolean };

export type GuardResult =
  | { ok: true; target: CheckedTarget }
  | { ok: false; refusal: TargetRefusal };

/** The only address WEBHOOK_ALLOW_INSECURE_TARGETS lets through. */
const INSECURE_TEST_ADDRESS = "127.0.0.1";

/** Ranges named more precisely than ipaddr.js's `reserved`, for a clearer `last_error`. */
const FINER_RANGES: Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number][]> = {
  documentation: [
    ipaddr.parseCIDR("192.0.2.0/24"),
    ipaddr.parseCIDR("198.51.100.0/24"),
    ipaddr.parseCIDR("203.0.113.0/24"),
    ipaddr.parseCIDR("2001:db8::/32"),
    ipaddr.parseCIDR("3fff::/20"),
  ],
  benchmarking: [ipaddr.parseCIDR("198.18.0.0/15")],
};
/** IPv6 outside this (global unicast) is refused whatever ipaddr.js calls it. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

const RANGE_LABELS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  reserved: "reserved",
  benchmarking: "benchmarking",
  documentation: "documentation",
  amt: "AMT relay",
  as112: "AS112",
  as112v6: "AS112",
  uniqueLocal: "unique-local",
  ipv4Mapped: "IPv4-mapped",
  rfc6145: "IPv4-translated",
  rfc6052: "NAT64",
  "6to4": "6to4",
  teredo: "Teredo",
  discard: "discard-only",
  deprecatedSiteLocal: "site-local",
  deprecatedOrchid: "ORCHID",
  orchid2: "ORCHID",
  droneRemoteIdProtocolEntityTags: "drone remote ID",
  segmentRouting: "segment routing",
  nonGlobal: "non-global",
};

/**
 * The range an address belongs to when it must not be reached (a label such as `loopback` or
 * `private`), or null for a public unicast address. Every range ipaddr.js names other than
 * `unicast` is refused, and IPv6 outside 2000::/3 as well. Anything unparseable is refused.
 */
export function refusedRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "invalid";
  }
  for (const [name, ranges] of Object.entries(FINER_RANGES)) {
    if (
      ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))
    ) {
      return name;
    }
  }
  const range: string = parsed.range();
  if (range !== "unicast") return range;
  if (parsed.kind() === "ipv6" && !parsed.match(IPV6_GLOBAL_UNICAST)) return "nonGlobal";
  return null;
}

/** "a private address", "an IPv4-mapped address": the range's name, never the address. */
export function describeRange(range: string): string {
  const label = RANGE_LABELS[range] ?? "non-public";
  return /^(?!uni)[aeiou]/i.test(label) ? `an ${label} address` : `a ${label} address`;
}

/**
 * Decides, just before an attempt, whether and where to connect. The host name is resolved
 * once, here, and refused when any of its addresses is loopback, private, link-local, CGNAT,
 * multicast, unspecified, benchmarking, documentation, 6to4/Teredo/NAT64, unique-local,
 * IPv4-mapped or otherwise not public; then https is required unless insecure targets are
 * allowed. The request goes to the checked address itself, so no second lookup can change the
 * answer.
 */
export async function checkTarget(rawUrl: string, options: GuardOptions): Promise<GuardResult> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, refusal: { reason: "not-a-url" } };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, refusal: { reason: "scheme", scheme: url.protocol.replace(/:$/, "") } };
  }
  if (url.username || url.password) {
    return { ok: false, refusal: { reason: "credentials" } };
  }
  // The URL parser has already turned every IPv4 spelling (0x7f.1, 2130706433) into dotted form.
  const literal = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const isLiteral = ipaddr.isValid(literal);
  let addresses: string[];
  if (isLiteral) {
    addresses = [literal];
  } else if (options.allowInsecureTargets && url.hostname.toLowerCase() === "localhost") {
    // Its lookup may also answer ::1, which the switch does not open: the one test address.
    addresses = [INSECURE_TEST_ADDRESS];
  } else {
    const name = url.hostname.replace(/\.$/, "");
    try {
      addresses = await withAbort((options.resolve ?? systemResolver)(name), options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const code = String((error as { code?: unknown } | null)?.code ?? "");
      return {
        ok: false,
        refusal: /^(ENOTFOUND|ENODATA|EAI_NONAME|)$/.test(code)
          ? { reason: "host-not-found" }
          : { reason: "lookup-failed", code },
      };
    }
    if (addresses.length === 0) return { ok: false, refusal: { reason: "host-not-found" } };
  }
  for (const address of addresses) {
    if (options.allowInsecureTargets && address === INSECURE_TEST_ADDRESS) continue;
    const range = refusedRange(address);
    if (range === null) continue;
    return { ok: false, refusal: { reason: "address", range, resolved: !isLiteral } };
  }
  if (url.protocol === "http:" && !options.allowInsecureTargets) {
    return { ok: false, refusal: { reason: "https-required" } };
  }
  return {
    ok: true,
    target: {
      urls: addresses.map((address) => withAddress(url, address)),
      host: url.host,
      serverName: isLiteral ? undefined : url.hostname.replace(/\.$/, ""),
    },
  };
}

/** The URL with the checked address in place of the host name (port, path and query kept). */
function withAddress(url: URL, address: string): string {
  const copy = new URL(url.href);
  copy.hostname = ipaddr.parse(address).kind() === "ipv6" ? `[${address}]` : address;
  return copy.href;
}

function withAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
