import { createServer, type Server } from "node:net";

/** Listens on a port the kernel chooses on 127.0.0.1. */
function listenOnEphemeralPort(): Promise<{ port: number; close: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server: Server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("no TCP address"));
      resolve({ port: address.port, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/**
 * Ports this process handed out: a port is free again once its listener closes, so the kernel may
 * give it to a later call before its owner binds it (a state file once held one port for both
 * etcd's clients and the kubelet's healthz: the kubelet never started).
 */
const handedOut = new Set<number>();

/**
 * `count` distinct free TCP ports on 127.0.0.1, none handed out before by this process (each held
 * open until every one is known). `listen` is the kernel's choice; replaceable to test the rule.
 */
export async function freePorts(count: number, listen = listenOnEphemeralPort): Promise<number[]> {
  const held: { port: number; close: () => Promise<void> }[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      if (held.length >= count + 100) throw new Error(`no ${count} free ports after ${held.length} tries`);
      const listener = await listen();
      held.push(listener);
      if (!handedOut.has(listener.port) && !ports.includes(listener.port)) ports.push(listener.port);
    }
  } finally {
    await Promise.all(held.map((listener) => listener.close()));
  }
  for (const port of ports) handedOut.add(port);
  return ports;
}
