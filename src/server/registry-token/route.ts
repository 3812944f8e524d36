/**
 * `GET /registry/token`: the platform registry's token endpoint (issuer.ts) on `slipway server`.
 * Outside /api/v1 and its Kubernetes-token authentication: the caller authenticates with the
 * registry credentials it has (HTTP Basic), as registry clients do. Refusals are logged with their
 * reason (never a password); the caller gets only the status and a generic message.
 */
import type { FastifyInstance } from "fastify";
import { registryTokenPath } from "../../platform/registry-token.ts";
import { errorBody } from "../errors.ts";
import { answerTokenRequest, type IssuerSettings } from "./issuer.ts";

const asList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (v): v is string => typeof v === "string",
  );

export function registryTokenRoute(app: FastifyInstance, settings: IssuerSettings, now = () => new Date()) {
  app.get(registryTokenPath, { schema: { hide: true } }, async (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const answer = answerTokenRequest(
      settings,
      {
        service: asList(query.service)[0],
        scopes: asList(query.scope),
        authorization: request.headers.authorization,
      },
      now(),
    );
    reply.header("cache-control", "no-store");
    if (answer.status === 200) {
      request.log.info({ subject: answer.subject }, "registry token issued");
      return answer.body;
    }
    request.log.info({ reason: answer.reason }, "registry token refused");
    if (answer.status === 401) reply.header("www-authenticate", `Basic realm="${settings.service}"`);
    return reply.status(answer.status).send(errorBody(answer.status, answer.message));
  });
}
