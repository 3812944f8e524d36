import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "../lib/metrics-client.ts";
import { bearerToken, type OpsAuthorizer } from "./ops-auth.ts";
import type { Readiness } from "./readiness.ts";
import type { Cache, ResourceType } from "./types.ts";

/** What an extra route answers: a status code and a JSON body. */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * A read-only endpoint answered from the manager's informer cache, never the API server
 * (ManagerOptions.routes). GET only; 503 until the caches of `reads` have synced.
 */
export interface CacheRoute {
  /** A path whose `:name` segments become parameters, e.g. /namespaces/:namespace/things/:name. */
  path: string;
  /** The kinds it reads (cached from the start, like a controller's). */
  reads: ResourceType[];
  get: (params: Record<string, string>, cache: Cache) => JsonAnswer;
}

/** A route as the server runs it: the cache and readiness already bound. */
export interface OpsRoute {
  path: string;
  ready: () => boolean;
  get: (params: Record<string, string>) => JsonAnswer;
}

/** The parameters of `path` if it matches `pattern` segment by segment (pure). */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const value = got[i] ?? "";
    if (segment.startsWith(":")) {
      if (!value) return undefined;
      try {
        params[segment.slice(1)] = decodeURIComponent(value);
      } catch {
        return undefined;
      }
    } else if (segment !== value) return undefined;
  }
  return params;
}

function answerJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

const errorBody = (statusCode: number, message: string) => ({
  statusCode,
  error: STATUS_CODES[statusCode] ?? "Error",
  message,
});

/** Answers `request` if one of `routes` matches its path; false when none does. */
function serveRoute(
  routes: readonly OpsRoute[],
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
) {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (!params) continue;
    if (request.method !== "GET") {
      answerJson(response, 405, errorBody(405, `${request.method} is not allowed: only GET`), {
        allow: "GET",
      });
    } else if (!route.ready()) {
      answerJson(response, 503, errorBody(503, "the operator's caches have not synced yet"));
    } else {
      try {
        const answer = route.get(params);
        answerJson(response, answer.status, answer.body);
      } catch (error) {
        answerJson(response, 500, errorBody(500, (error as Error).message));
      }
    }
    return true;
  }
  return false;
}

/** The loopback address: where the operations endpoints listen unless told otherwise. */
export const loopback = "127.0.0.1";

export interface OpsServerOptions {
  registry?: Registry;
  /** What /readyz answers (200 when ready, 503 otherwise, with the detail as text); ready when absent. */
  readiness?: () => Readiness;
  routes?: OpsRoute[];
  /** When set, /metrics and the routes answer only callers it allows (the probes stay open). */
  authorize?: OpsAuthorizer;
}

/**
 * Serves /metrics (Prometheus text), /healthz (the process is alive), /readyz (caches synced) and
 * any extra read-only `routes` (JSON); /metrics and the routes behind `authorize` when given.
 */
export class OpsServer {
  readonly #server: Server;

  constructor(options: OpsServerOptions) {
    this.#server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0] ?? "/";
      if (path === "/healthz" || path === "/livez" || path === "/readyz" || !options.authorize) {
        serve(options, request, response, path);
        return;
      }
      options
        .authorize(bearerToken(request.headers.authorization), path)
        .then((verdict) => {
          if (verdict === 200) serve(options, request, response, path);
          else refuse(response, verdict);
        })
        .catch((error: Error) => answerJson(response, 500, errorBody(500, error.message)));
    });
  }

  /** Listens on `host` (default loopback) and `port` (0: any free port); resolves with the port. */
  listen(port: number, host = loopback): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => resolve((this.#server.address() as AddressInfo).port));
    });
  }

  /** The address it listens on. */
  get address(): string | undefined {
    return (this.#server.address() as AddressInfo | null)?.address;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

function refuse(response: ServerResponse, verdict: 401 | 403) {
  const message =
    verdict === 401
      ? "a bearer token the API server accepts is required"
      : "the token's user may not get this path (RBAC nonResourceURLs)";
  answerJson(
    response,
    verdict,
    errorBody(verdict, message),
    verdict === 401 ? { "www-authenticate": "Bearer" } : {},
  );
}

function serve(options: OpsServerOptions, request: IncomingMessage, response: ServerResponse, path: string) {
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
    const { ready, detail } = options.readiness?.() ?? { ready: true, detail: "ok" };
    response.writeHead(ready ? 200 : 503, { "content-type": "text/plain" });
    response.end(detail);
    return;
  }
  if (serveRoute(options.routes ?? [], request, response, path)) return;
  response.writeHead(404, { "content-type": "text/plain" });
  response.end("not found");
}
