/**
 * The bare server every bench compares against: a `Bun.serve` in its own process answering
 * every request with one captured answer (status, headers, bytes), built once. Reads the answer
 * from the JSON file named by BARE_ANSWER_FILE and prints its port on the first line.
 *
 * With BARE_PROXY_TO set instead, it is the bare proxy of the gateway-hop bench: every request
 * is passed to that base URL by `fetch` and its answer returned as it came.
 */
import { readFileSync } from "node:fs";

export interface CapturedAnswer {
  status: number;
  headers: [string, string][];
  /** The body, base64. */
  body: string;
}

const proxyTo = process.env.BARE_PROXY_TO;

function answering(file: string): (request: Request) => Response {
  const answer = JSON.parse(readFileSync(file, "utf8")) as CapturedAnswer;
  const body = Buffer.from(answer.body, "base64");
  const response = new Response(body, { status: answer.status, headers: answer.headers });
  return () => response.clone();
}

function proxying(base: string): (request: Request) => Promise<Response> {
  return (request) => {
    const url = new URL(request.url);
    return fetch(base + url.pathname + url.search, {
      method: request.method,
      headers: request.headers,
      redirect: "manual",
    });
  };
}

const server = Bun.serve({
  port: Number(process.env.BARE_PORT ?? 0),
  hostname: "127.0.0.1",
  fetch: proxyTo ? proxying(proxyTo) : answering(process.env.BARE_ANSWER_FILE ?? ""),
});
console.log(String(server.port));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
