/**
 * The webhook receiver of bench/webhooks.bench.ts, in a process of its own on 127.0.0.1: reads
 * each POST's body, answers 200 and notes when it arrived (wall-clock ms), its path and its
 * `webhook-id`. `GET /count` answers how many arrived, `GET /arrivals` lists them,
 * `POST /reset` forgets them. Prints its port on the first line of stdout.
 */
interface Arrival {
  at: number;
  path: string;
  id: string;
}

let arrivals: Arrival[] = [];
const now = () => performance.timeOrigin + performance.now();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method === "POST" && path.startsWith("/hooks/")) {
      await request.arrayBuffer();
      arrivals.push({ at: now(), path, id: request.headers.get("webhook-id") ?? "" });
      return new Response("ok");
    }
    if (path === "/count") return Response.json({ count: arrivals.length });
    if (path === "/arrivals") return Response.json(arrivals);
    if (path === "/reset" && request.method === "POST") {
      arrivals = [];
      return Response.json({ ok: true });
    }
    return new Response("not found", { status: 404 });
  },
});

console.log(server.port);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
