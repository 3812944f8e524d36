/**
 * `node tcp-forward.ts <listen host:port> <target host:port>`: forwards every TCP connection to the
 * target, bytes unchanged (TLS passes through). Run by `slipway dev up` so pods reach the API server at
 * the bridge's gateway while it listens on 127.0.0.1 only.
 */
import { connect, createServer } from "node:net";

function hostPort(value: string | undefined, what: string): { host: string; port: number } {
  const match = /^([\d.]+):(\d+)$/.exec(value ?? "");
  if (!match?.[1] || !match[2]) throw new Error(`${what} must be <ipv4>:<port>, not ${value}`);
  return { host: match[1], port: Number(match[2]) };
}

const listen = hostPort(process.argv[2], "the listen address");
const target = hostPort(process.argv[3], "the target address");

const server = createServer((client) => {
  const upstream = connect(target.port, target.host);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close);
  upstream.on("error", close);
});
server.listen(listen.port, listen.host, () =>
  console.log(`forwarding ${process.argv[2]} to ${process.argv[3]}`),
);
// open connections (watches) would hold a graceful close: stop at once
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => process.exit(0));
