/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request it
 * gets and answers as each path is told to (200 "ok" by default).
 */
export interface Hit {
  path: string;
  headers: Headers;
  body: string;
  /** When the request arrived, in ms since the epoch. */
  at: number;
}

export type Behaviour = (hit: Hit) => Response | Promise<Response>;

/** Starts a receiver on a free port; `stop()` ends it. */
export function startReceiver() {
  const hits: Hit[] = [];
  const behaviours = new Map<string, Behaviour>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const hit: Hit = {
        path,
        headers: request.headers,
        body: await request.text(),
        at: Date.now(),
      };
      hits.push(hit);
      const behaviour = behaviours.get(path);
      return behaviour ? behaviour(hit) : new Response("ok");
    },
  });
  return {
    hits,
    url: (path: string) => `http://127.0.0.1:${server.port}${path}`,
    on(path: string, behaviour: Behaviour) {
      behaviours.set(path, behaviour);
    },
    at: (path: string) => hits.filter((hit) => hit.path === path),
    stop: () => server.stop(true),
  };
}

export type Receiver = ReturnType<typeof startReceiver>;
