import type { Socket, TCPSocketListener } from "bun";

/**
 * A TCP proxy on 127.0.0.1 in front of a server (a database, say), for tests that make the server
 * unreachable: `cut()` closes the listener and resets every connection through it, as a network
 * partition or a dead host would; `restore()` listens on the same port again.
 */
export interface TcpProxy {
  port: number;
  /**
   * How many times clients sent data: a client that waits for each answer before it sends again
   * sends once per round trip, so a test counts its round trips by this.
   */
  readonly clientSends: number;
  cut(): void;
  restore(): void;
}

/** One side of a proxied connection: what it has not yet taken (Bun writes may be partial). */
interface Side {
  peer?: Socket<Side>;
  queued: Uint8Array[];
  /** What the client sent before the upstream connection opened. */
  early: Uint8Array[];
}

const side = (peer?: Socket<Side>): Side => ({ peer, queued: [], early: [] });

function send(socket: Socket<Side>, chunk: Uint8Array): void {
  if (socket.data.queued.length > 0) {
    socket.data.queued.push(chunk);
    return;
  }
  const written = socket.write(chunk);
  if (written < chunk.byteLength) socket.data.queued.push(chunk.subarray(Math.max(written, 0)));
}

function flush(socket: Socket<Side>): void {
  while (socket.data.queued.length > 0) {
    const chunk = socket.data.queued[0]!;
    const written = socket.write(chunk);
    if (written < chunk.byteLength) {
      socket.data.queued[0] = chunk.subarray(Math.max(written, 0));
      return;
    }
    socket.data.queued.shift();
  }
}

export function tcpProxy(target: { hostname: string; port: number }): TcpProxy {
  const open = new Set<Socket<Side>>();
  let listener: TCPSocketListener<Side> | null = null;
  let clientSends = 0;

  const listen = (port: number) =>
    Bun.listen<Side>({
      hostname: "127.0.0.1",
      port,
      data: side(),
      socket: {
        open(client) {
          client.data = side();
          open.add(client);
          Bun.connect<Side>({
            hostname: target.hostname,
            port: target.port,
            data: side(client),
            socket: {
              open(upstream) {
                client.data.peer = upstream;
                open.add(upstream);
                for (const chunk of client.data.early) send(upstream, chunk);
                client.data.early = [];
              },
              data(upstream, chunk) {
                if (upstream.data.peer) send(upstream.data.peer, new Uint8Array(chunk));
              },
              drain: flush,
              close(upstream) {
                open.delete(upstream);
                client.end();
              },
              error() {
                client.end();
              },
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          clientSends += 1;
          const copy = new Uint8Array(chunk);
          if (client.data.peer) send(client.data.peer, copy);
          else client.data.early.push(copy);
        },
        drain: flush,
        close(client) {
          open.delete(client);
          client.data.peer?.end();
        },
      },
    });

  listener = listen(0);
  const port = listener.port;
  return {
    port,
    get clientSends() {
      return clientSends;
    },
    cut() {
      listener?.stop(true);
      listener = null;
      for (const socket of open) socket.terminate();
      open.clear();
    },
    restore() {
      listener ??= listen(port);
    },
  };
}
