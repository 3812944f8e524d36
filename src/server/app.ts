import { existsSync } from "node:fs";
import { resolve } from "node:path";
import fastifyStatic from "@fastify/static";
import fastifySwagger from "@fastify/swagger";
import type { KubeConfig } from "@kubernetes/client-node";
import Fastify, { type FastifyInstance } from "fastify";
import type { ReleaseCatalog } from "../platform/version-change.ts";
import { authenticationHook, TokenAuthenticator, type TokenReviewer } from "./auth.ts";
import { imageBuildRoutes } from "./builds/routes.ts";
import { errorBody, errorHandler } from "./errors.ts";
import { defaultLimits, type ServerLimits } from "./limits/config.ts";
import { FailureLimiter } from "./limits/failure-limiter.ts";
import { namespaceRoutes } from "./namespaces/routes.ts";
import { pipelineRoutes } from "./pipelines/routes.ts";
import type { PlatformKey } from "./platform/platforms.ts";
import { platformRoutes } from "./platform/routes.ts";
import type { IssuerSettings } from "./registry-token/issuer.ts";
import { registryTokenRoute } from "./registry-token/route.ts";
import { setUpEventStreams } from "./sse.ts";

export interface ServerOptions {
  /** The server's own identity: it reviews tokens and gives the cluster address and CA of per-user clients. */
  kubeConfig: KubeConfig;
  /** The Platform the platform endpoints show and update. */
  platform: PlatformKey;
  releases: ReleaseCatalog;
  /** The built UI (web/dist); without it only the API is served. */
  webRoot?: string;
  /** pino level; "silent" in tests. Default "info". */
  logLevel?: string;
  /** Where log lines go (default stdout). */
  logStream?: NodeJS.WritableStream;
  /** Human-readable log lines (pino-pretty), for a terminal; default JSON lines. */
  prettyLogs?: boolean;
  /** Seconds between heartbeat comments on event streams (default 15). */
  heartbeatSeconds?: number;
  /** The limits under abuse (limits/config.ts); each one not given has its default. */
  limits?: Partial<ServerLimits>;
  /** How bearer tokens are checked (default: TokenReview as `kubeConfig`); tests front it to count reviews. */
  reviewToken?: TokenReviewer;
  /** The clock the token cache's TTL and registry tokens are read by (default Date.now); tests step it instead of waiting. */
  now?: () => number;
  /**
   * Proxies whose `X-Forwarded-For` names the client (addresses or CIDRs, as Fastify's trustProxy):
   * the failure rate limit is per client, and behind an Ingress every client is the proxy otherwise.
   */
  trustProxy?: string[];
  /** Served to browsers over HTTPS (behind a TLS Ingress): every reply says Strict-Transport-Security. */
  hsts?: boolean;
  /** Issue the platform registry's tokens at /registry/token (registry-token/issuer.ts). */
  registryToken?: IssuerSettings;
}

const apiPrefix = "/api/v1";
/** The UI is same-origin only: no framing, no third-party scripts, styles or connections. */
const securityHeaders = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
};
const kubernetesSchemaKeywords = [
  "x-kubernetes-validations",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
];

/** pino options: the level, where lines go, and never the Authorization header or a token. */
function loggerOptions(options: Pick<ServerOptions, "logLevel" | "logStream" | "prettyLogs">) {
  return {
    level: options.logLevel ?? "info",
    ...(options.logStream ? { stream: options.logStream } : {}),
    ...(options.prettyLogs && !options.logStream ? { transport: { target: "pino-pretty" } } : {}),
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "token"],
      censor: "[redacted]",
    },
  };
}

const openApiInfo = {
  openapi: {
    info: {
      title: "Slipway API",
      version: "v1",
      description:
        "Send `Authorization: Bearer <Kubernetes token>`; Kubernetes RBAC decides what the caller may do.",
    },
    components: { securitySchemes: { bearer: { type: "http" as const, scheme: "bearer" } } },
    security: [{ bearer: [] }],
  },
};

type AppOptions = Pick<ServerOptions, "logLevel" | "logStream" | "prettyLogs" | "trustProxy" | "hsts">;

/** One year, the value HSTS preload lists ask for (RFC 6797; browsers ignore it over plain HTTP). */
const hstsHeader = { "strict-transport-security": "max-age=31536000" };

/** What every mode of `slipway server` has: logging, security headers, error replies, /healthz. */
function baseApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: loggerOptions(options),
    ...(options.trustProxy?.length ? { trustProxy: options.trustProxy } : {}),
    ajv: {
      customOptions: {
        removeAdditional: false,
        // CRD schemas can be used as they are: the API server enforces these, Ajv only has to accept them.
        keywords: kubernetesSchemaKeywords,
      },
    },
  });
  app.setErrorHandler(errorHandler);
  const headers = options.hsts ? { ...securityHeaders, ...hstsHeader } : securityHeaders;
  app.addHook("onRequest", async (_request, reply) => {
    reply.headers(headers);
  });
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  return app;
}

/**
 * `slipway server --ui-only` (the platform's web component): the built UI and /healthz, no API and
 * no Kubernetes identity; the Ingress sends /api to the api-server.
 */
export async function buildUiServer(options: AppOptions & { webRoot: string }): Promise<FastifyInstance> {
  const app = baseApp(options);
  await serveWebUi(app, options.webRoot);
  return app;
}

/** The Slipway API server: REST + server-sent events under /api/v1 (authenticated), the web UI elsewhere. */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = baseApp(options);
  app.decorateRequest("user", null as never);
  app.decorateRequest("kube", null as never);
  app.decorateRequest("rest", null as never);
  app.decorateRequest("stillAuthenticated", null as never);
  const limits = { ...defaultLimits, ...options.limits };
  const tokenTtlMs = limits.tokenCacheSeconds * 1000;
  setUpEventStreams(app, {
    perUser: limits.streamsPerUser,
    total: limits.streamsTotal,
    bufferBytes: limits.streamBufferBytes,
    drainMs: limits.streamDrainSeconds * 1000,
    recheckMs: tokenTtlMs,
  });
  await app.register(fastifySwagger, openApiInfo);

  app.get(`${apiPrefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());

  const authenticator = new TokenAuthenticator(options.kubeConfig, {
    ttlMs: tokenTtlMs,
    entries: limits.tokenCacheEntries,
    ...(options.reviewToken ? { review: options.reviewToken } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const failures = new FailureLimiter(limits.authFailuresPerMinute);
  await app.register(
    async function apiRoutes(api) {
      api.addHook("onRequest", authenticationHook(authenticator, failures));
      const heartbeatMs = (options.heartbeatSeconds ?? 15) * 1000;
      await api.register(platformRoutes, {
        platform: options.platform,
        releases: options.releases,
        heartbeatMs,
      });
      await api.register(imageBuildRoutes, { heartbeatMs });
      await api.register(pipelineRoutes, { heartbeatMs });
      await api.register(namespaceRoutes, { namespace: options.platform.namespace });
    },
    { prefix: apiPrefix },
  );

  if (options.registryToken)
    registryTokenRoute(app, options.registryToken, () => new Date((options.now ?? Date.now)()));
  await serveWebUi(app, options.webRoot);
  return app;
}

/** The built UI at `root` (when it is there), with its client-side routes; a JSON 404 for anything else. */
async function serveWebUi(app: FastifyInstance, root: string | undefined): Promise<void> {
  const webRoot = root ? resolve(root) : undefined;
  const serveUi = webRoot !== undefined && existsSync(resolve(webRoot, "index.html"));
  if (webRoot && !serveUi)
    app.log.warn({ webRoot }, "no built UI there (run npm run build:web); serving the API only");
  if (serveUi) await app.register(fastifyStatic, { root: webRoot, prefix: "/", wildcard: true });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    // Client-side routes (e.g. /update) are pages of the single-page UI.
    if (serveUi && isUiPage(request.method, path)) return reply.type("text/html").sendFile("index.html");
    return reply.status(404).send(errorBody(404, `no route ${request.method} ${path}`));
  });
}

/**
 * First path segments that are API addresses (ours and the Kubernetes API's), never UI pages: a
 * client that asks one of them for something no route serves gets a JSON 404, not the UI's HTML
 * with 200, which it would take for an answer.
 */
const apiSegments = new Set(["api", "apis", "openapi", "healthz", "readyz", "livez", "metrics", "version"]);

/** Whether the UI's index.html answers this request no route serves: a GET of a page address. */
export function isUiPage(method: string, path: string): boolean {
  if (method !== "GET" || /\.[a-z0-9]+$/i.test(path)) return false;
  const first = path.split("/").find(Boolean) ?? "";
  return !apiSegments.has(first.toLowerCase());
}
