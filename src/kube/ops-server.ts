import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** Serves /metrics (Prometheus text), /healthz (the process is alive) and /readyz (caches synced). */
export class OpsServer {
  readonly #server: Server;

  constructor(options: { registry?: Registry; ready?: () => boolean }) {
    this.#server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0];
      if (path === "/metrics" && options.registry) {
        const registry = options.registry;
        registry
          .metrics()
          .then((text) => {
            response.writeHead(200, { "content-type": registry.contentType });
            response.end(text);
          })
          .catch((error: Error) => {
            response.writeHead(500);
            response.end(error.message);
          });
        return;
      }
      if (path === "/healthz" || path === "/livez") {
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("ok");
        return;
      }
      if (path === "/readyz") {
        const ready = options.ready?.() ?? true;
        response.writeHead(ready ? 200 : 503, { "content-type": "text/plain" });
        response.end(ready ? "ok" : "caches not synced");
        return;
      }
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
    });
  }

  /** Listens on `port` (0: any free port) and resolves with the port. */
  listen(port: number, host = "0.0.0.0"): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => resolve((this.#server.address() as AddressInfo).port));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
