/**
 * A TCP proxy on 127.0.0.1 in front of a server: it counts the connections clients open, and can
 * reset a kept-alive connection when its next request arrives (as a server that closed it while
 * idle would be seen by a client that sent on it at that moment).
 */
import { connect, createServer, type Socket } from "node:net";
import { onTestFinished } from "vitest";

export interface TcpProxy {
  /** host:port */
  address: string;
  /** Connections accepted so far. */
  connections(): number;
  /** The next request that arrives on a connection which already carried one is answered with a reset. */
  resetNextReuse(): void;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(":")),
    Number(target.slice(target.lastIndexOf(":") + 1)),
  ];
  let accepted = 0;
  let resetPending = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    accepted++;
    open.add(client);
    let requests = 0;
    const upstream = connect(port, host);
    client.on("data", (chunk) => {
      requests++;
      if (requests > 1 && resetPending) {
        resetPending = false;
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const close = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("proxy has no port");
  onTestFinished(async () => {
    for (const socket of open) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    address: `127.0.0.1:${address.port}`,
    connections: () => accepted,
    resetNextReuse: () => {
      resetPending = true;
    },
  };
}
