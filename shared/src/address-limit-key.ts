import { isIP } from "node:net";

/**
 * What a per-address limit counts: an IPv4 address as is (also when written IPv4-mapped,
 * `::ffff:192.0.2.1`), an IPv6 address by its /64 prefix (`2001:db8:1:2::/64`). One IPv6 client
 * usually holds a whole /64, so counting each address would give it 2^64 limits. Anything that is
 * not an address (such as `unknown`) is its own key.
 */
export function addressLimitKey(address: string): string {
  const bare = address.split("%")[0]!; // without an IPv6 zone id (fe80::1%eth0)
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` and a dotted IPv4 tail expanded. */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const toGroups = (part: string) => (part ? part.split(":").map((hex) => parseInt(hex, 16)) : []);
  const [head = "", rest] = text.split("::");
  if (rest === undefined) return toGroups(head);
  const left = toGroups(head);
  const right = toGroups(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
