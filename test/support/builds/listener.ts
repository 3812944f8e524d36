/**
 * A host the platform does not allow, on 127.0.0.1: it records every request (and any credential in
 * it) and answers as a registry asking for credentials would, so a client that would send them does.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { onTestFinished } from "vitest";

export interface Listener {
  /** host:port */
  address: string;
  requests: { method: string; url: string; headers: IncomingHttpHeaders }[];
  /** Requests that carried an Authorization header. */
  credentialed(): number;
}

type Answer = (url: string) => { status: number; headers?: Record<string, string>; body?: string };

/** Default answer: 401 with a Basic challenge (what makes a client send its credentials). */
export async function startListener(answer?: Answer): Promise<Listener> {
  const requests: Listener["requests"] = [];
  const reply: Answer =
    answer ?? (() => ({ status: 401, headers: { "www-authenticate": 'Basic realm="listener"' } }));
  const server = createServer((request, response) => {
    requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
    const { status, headers, body } = reply(request.url ?? "/");
    response.writeHead(status, headers).end(body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("listener has no port");
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    address: `127.0.0.1:${address.port}`,
    requests,
    credentialed: () => requests.filter((r) => r.headers.authorization !== undefined).length,
  };
}
