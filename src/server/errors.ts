import { STATUS_CODES } from "node:http";
import { Type } from "@sinclair/typebox";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../kube/rest.ts";

/** The JSON body of every 4xx/5xx answer. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  /** The input field at fault, e.g. `body.version`. */
  field?: string;
}

/** The schema of ErrorBody, for routes' `response` schemas (and so the OpenAPI document). */
export const ErrorSchema = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  field: Type.Optional(Type.String({ description: "the input field at fault, e.g. body.version" })),
});

/** `response` schema entries answering ErrorBody for each of these status codes. */
export function errorResponses(...codes: number[]): Record<number, typeof ErrorSchema> {
  return Object.fromEntries(codes.map((code) => [code, ErrorSchema]));
}

/** An error a route throws to answer with this status and message. */
export class HttpError extends Error {
  override name = "HttpError";
  readonly statusCode: number;
  readonly field: string | undefined;
  constructor(statusCode: number, message: string, field?: string) {
    super(message);
    this.statusCode = statusCode;
    this.field = field;
  }
}

/** 429: the client is told to wait `retryAfterSeconds` (the `Retry-After` header). */
export class TooManyRequests extends HttpError {
  override name = "TooManyRequests";
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The status the Kubernetes API refused with (src/kube/rest.ts's ApiError). */
export function upstreamStatus(error: unknown): number | undefined {
  return error instanceof ApiError ? error.status : undefined;
}

/**
 * A `.catch` handler for a read or delete of one object: the Kubernetes API's 404 becomes a 404
 * answer saying `what` (e.g. `ImageBuild ns/name`) does not exist; any other error goes on.
 */
export function notFoundAs(what: string): (error: unknown) => never {
  return (error) => {
    if (upstreamStatus(error) === 404) throw new HttpError(404, `${what} does not exist`);
    throw error;
  };
}

export function errorBody(statusCode: number, message: string, field?: string): ErrorBody {
  const body: ErrorBody = { statusCode, error: STATUS_CODES[statusCode] ?? "Error", message };
  if (field) body.field = field;
  return body;
}

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** `body` + `/spec/image` (+ a missing property) → `body.spec.image`. */
export function validationField(context: string, issue: ValidationIssue): string {
  const path = issue.instancePath.split("/").filter(Boolean);
  if (issue.keyword === "required" && typeof issue.params.missingProperty === "string") {
    path.push(issue.params.missingProperty);
  }
  if (issue.keyword === "additionalProperties" && typeof issue.params.additionalProperty === "string") {
    path.push(issue.params.additionalProperty);
  }
  return [context, ...path].join(".");
}

function validationMessage(field: string, issue: ValidationIssue): string {
  if (issue.keyword === "required") return `${field} is required`;
  if (issue.keyword === "additionalProperties") return `${field} is not a known field`;
  if (issue.keyword === "enum" && Array.isArray(issue.params.allowedValues)) {
    return `${field} must be one of ${issue.params.allowedValues.join(", ")}`;
  }
  return `${field} ${issue.message ?? "is invalid"}`;
}

/** A refusal of the Kubernetes API (as the caller) is the caller's answer; its failure is a 502. */
function kubernetesErrorBody(code: number, message: string | undefined): ErrorBody {
  if (code === 401) return errorBody(401, "the Kubernetes API refused the credentials");
  if (code >= 400 && code < 500) return errorBody(code, message ?? `the Kubernetes API answered ${code}`);
  return errorBody(502, `the Kubernetes API failed (${code})${message ? `: ${message}` : ""}`);
}

/** Maps any error a handler throws to the status and JSON body the client gets. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof HttpError) return errorBody(error.statusCode, error.message, error.field);
  if (error instanceof ApiError)
    return kubernetesErrorBody(error.status, error.statusMessage ?? error.message);
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation?.length) {
    const issue = fastifyError.validation[0] as ValidationIssue;
    const field = validationField(fastifyError.validationContext ?? "input", issue);
    return errorBody(400, validationMessage(field, issue), field);
  }
  const statusCode = fastifyError.statusCode;
  if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500) {
    return errorBody(statusCode, fastifyError.message ?? "bad request");
  }
  return errorBody(500, "internal server error");
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const body = toErrorBody(error);
  if (error instanceof TooManyRequests) void reply.header("retry-after", String(error.retryAfterSeconds));
  if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
  else request.log.info({ statusCode: body.statusCode, reason: body.message }, "request refused");
  void reply.status(body.statusCode).send(body);
}
