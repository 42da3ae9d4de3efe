import { createSocket } from "node:dgram";

/**
 * A small DNS server on 127.0.0.1 (UDP) that answers TXT queries from `records` (name, lower-case,
 * to its texts); any other name or type gets NXDOMAIN. Enough for `dns.promises.Resolver`.
 */
export async function startDnsServer() {
  const records = new Map<string, string[]>();
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    const answer = answerOf(query, records);
    if (answer) socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  return {
    /** For DNS_RESOLVERS. */
    server: `127.0.0.1:${port}`,
    records,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

export type DnsServer = Awaited<ReturnType<typeof startDnsServer>>;

const TXT = 16;
const IN = 1;

function answerOf(query: Buffer, records: Map<string, string[]>): Buffer | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const length = query[at]!;
    labels.push(query.subarray(at + 1, at + 1 + length).toString("latin1"));
    at += 1 + length;
  }
  const questionEnd = at + 5;
  if (questionEnd > query.length) return null;
  const type = query.readUInt16BE(at + 1);
  const name = labels.join(".").toLowerCase();
  const texts = type === TXT ? records.get(name) : undefined;

  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // A response, recursion desired and available; NXDOMAIN when the name has no record here.
  header.writeUInt16BE(0x8180 | (texts ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(texts?.length ?? 0, 6);
  const answers = (texts ?? []).map((text) => {
    const data = Buffer.from(text, "utf8");
    const rdata = Buffer.concat([Buffer.from([data.length]), data]);
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0); // the question's name
    fixed.writeUInt16BE(TXT, 2);
    fixed.writeUInt16BE(IN, 4);
    fixed.writeUInt32BE(60, 6);
    fixed.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([fixed, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}
