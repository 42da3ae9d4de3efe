import { connect } from "node:net";

/** An answer read off the socket: status, headers (lower-case names) and the body as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, as text. */
  raw: string;
}

/**
 * Sends bytes exactly as given to 127.0.0.1:`port` and reads until the server closes (send
 * `Connection: close` or HTTP/1.0). For requests a `fetch` would refuse or repair: a missing or
 * odd Host, HTTP/1.0, bytes that are not UTF-8.
 */
export function rawRequest(
  port: number,
  request: string | Uint8Array,
  options: { timeoutMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${options.timeoutMs ?? 5_000} ms`));
    }, options.timeoutMs ?? 5_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)));
    });
  });
}

function parseAnswer(bytes: Buffer): RawAnswer {
  const raw = bytes.toString("latin1");
  const end = raw.indexOf("\r\n\r\n");
  const head = end === -1 ? raw : raw.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end === -1 ? Buffer.alloc(0) : bytes.subarray(Buffer.byteLength(head, "latin1") + 4);
  if (headers["transfer-encoding"]?.includes("chunked")) body = unchunk(body);
  return {
    status: Number(statusLine.split(" ")[1] ?? 0),
    headers,
    body: body.toString("utf8"),
    raw,
  };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!size) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
