import { BlockList, isIP } from "node:net";

/** Parses TRUSTED_PROXIES (comma-separated CIDRs or addresses) into a matcher. */
export function trustedProxies(list: string): (address: string) => boolean {
  return addressMatcher(list, "TRUSTED_PROXIES");
}

/** Parses a list of comma-separated CIDRs or addresses, the variable `name`, into a matcher. */
export function addressMatcher(list: string, name: string): (address: string) => boolean {
  const blocks = new BlockList();
  let any = false;
  for (const entry of list.split(",").map((s) => s.trim())) {
    if (!entry) continue;
    const [address, bits] = entry.split("/");
    const family = isIP(address ?? "");
    if (!address || !family) throw new Error(`${name}: not an address or CIDR: ${entry}`);
    const type = family === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) blocks.addAddress(address, type);
    else blocks.addSubnet(address, Number(bits), type);
    any = true;
  }
  return (address) => {
    if (!any) return false;
    const clean = unmapped(address);
    const family = isIP(clean);
    return family !== 0 && blocks.check(clean, family === 6 ? "ipv6" : "ipv4");
  };
}

/** The private and shared address ranges: a whole one is never one peer's own addresses. */
const PRIVATE_RANGES: [string, number, "ipv4" | "ipv6"][] = [
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["fc00::", 7, "ipv6"],
];

/**
 * The first entry of a comma-separated CIDR list that takes in a whole private range
 * (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, or wider), or null.
 */
export function wholePrivateRangeIn(list: string): string | null {
  for (const entry of list.split(",").map((s) => s.trim())) {
    const [address, bits] = entry.split("/");
    const family = isIP(address ?? "");
    if (!address || !family || bits === undefined) continue;
    const type = family === 6 ? "ipv6" : "ipv4";
    const subnet = new BlockList();
    subnet.addSubnet(address, Number(bits), type);
    for (const [base, prefix, rangeType] of PRIVATE_RANGES) {
      if (rangeType === type && Number(bits) <= prefix && subnet.check(base, type)) return entry;
    }
  }
  return null;
}

/** 127.0.0.0/8 or ::1, IPv4-mapped or not. */
export function isLoopback(address: string): boolean {
  const clean = unmapped(address);
  return clean === "::1" || (isIP(clean) === 4 && clean.startsWith("127."));
}

function unmapped(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The client's address: the socket peer, or, when the peer is a trusted proxy, the first
 * untrusted address of X-Forwarded-For read from the right.
 */
export function clientIp(
  socketAddress: string,
  forwardedFor: string | null,
  isTrusted: (address: string) => boolean,
): string {
  let current = unmapped(socketAddress);
  if (!isTrusted(current) || !forwardedFor) return current;
  const hops = forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = unmapped(hops[i]!);
    if (!isIP(hop)) return current;
    current = hop;
    if (!isTrusted(hop)) return hop;
  }
  return current;
}
