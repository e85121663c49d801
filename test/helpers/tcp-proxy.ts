import { connect, createServer, type Server, type Socket } from "node:net";
import { onTestFinished } from "vitest";

/**
 * A loopback TCP proxy that can cut the line without closing it: the network partition of the
 * scale-out tests, on any machine (no root, no `ip netns`).
 *
 * - `partition()`: no byte moves in either direction on any connection, old or new, yet every
 *   socket stays open — no RST, no FIN, like a pulled cable. Bytes sent meanwhile wait in the
 *   kernel's buffers (as TCP retransmits them on a real network) and arrive after `heal()`.
 *   A new connection is accepted, but nothing of it reaches the server until the heal.
 * - `heal()`: everything flows again.
 * - `close()`: ends every connection and stops listening.
 */
export interface TcpProxy {
  port: number;
  partition(): void;
  heal(): void;
  close(): Promise<void>;
  /** Connections the proxy has accepted so far. */
  readonly accepted: number;
}

/** One proxied connection; `held` marks a side paused by back-pressure (resumed on its drain). */
interface Pair {
  client: Socket;
  server: Socket;
  held: Set<Socket>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let cut = false;
  let accepted = 0;
  const pairs = new Set<Pair>();

  // One direction of a pair: forwards while the line is up, honours back-pressure, and never
  // reads while cut (a paused socket also holds back its end-of-stream).
  const forward = (pair: Pair, from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => {
      if (to.write(chunk)) return;
      pair.held.add(from);
      from.pause();
      to.once("drain", () => {
        pair.held.delete(from);
        if (!cut) from.resume();
      });
    });
    from.on("end", () => to.end());
  };

  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, server: upstream, held: new Set() };
    pairs.add(pair);
    if (cut) {
      client.pause();
      upstream.pause();
    }
    forward(pair, client, upstream);
    forward(pair, upstream, client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on("error", drop);
      s.on("close", drop);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;

  return {
    port,
    get accepted() {
      return accepted;
    },
    partition() {
      cut = true;
      for (const p of pairs) {
        p.client.pause();
        p.server.pause();
      }
    },
    heal() {
      cut = false;
      for (const p of pairs) {
        for (const s of [p.client, p.server]) if (!p.held.has(s)) s.resume();
      }
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A proxy in front of the server of the database `url` (closed when the test finishes) and the
 * same URL through it, with a short statement timeout (`query_timeout`, ms) so a partition
 * outlasts a statement: what a worker cut off from its database is given.
 */
export async function proxiedDatabase(
  url: string,
  queryTimeoutMs: number,
): Promise<{ proxy: TcpProxy; url: string }> {
  const direct = new URL(url);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
  onTestFinished(() => proxy.close());
  const via = new URL(url);
  via.port = String(proxy.port);
  via.searchParams.set("query_timeout", String(queryTimeoutMs));
  return { proxy, url: via.toString() };
}
