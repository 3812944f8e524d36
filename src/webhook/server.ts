/**
 * The operator's webhook endpoint: HTTPS (the API server calls webhooks over TLS only), one
 * AdmissionHandler per path, the CRDs' conversion at `conversionPath`, the serving certificate
 * swapped in place when it rotates.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { conversionPath } from "../apis/versions.ts";
import { type AdmissionHandler, parseReview, refuse, reviewResponse } from "./admission-review.ts";
import { answerConversion, parseConversionReview } from "./conversion-review.ts";

/** An AdmissionReview is small; anything far larger is not one. */
const maxBodyBytes = 4 * 1024 * 1024;
/** A ConversionReview holds a whole list response (e.g. `kubectl get runs` of a namespace, 500 a page). */
const maxConversionBytes = 64 * 1024 * 1024;

export interface TlsMaterial {
  certPem: string;
  keyPem: string;
}

export class WebhookServer {
  readonly #server: Server;
  readonly #handlers: Map<string, AdmissionHandler>;
  readonly #log: Logger;
  readonly #converts: boolean;

  constructor(
    tls: TlsMaterial,
    handlers: Record<string, AdmissionHandler>,
    log: Logger,
    options: { converts?: boolean } = {},
  ) {
    this.#handlers = new Map(Object.entries(handlers));
    this.#log = log;
    this.#converts = options.converts ?? false;
    this.#server = createServer({ cert: tls.certPem, key: tls.keyPem, minVersion: "TLSv1.2" }, (req, res) => {
      // a caller that goes away mid-request (the API server's timeout, a restart) rejects the
      // body's read: that request is over, the server is not
      this.#serve(req, res).catch((error: unknown) => {
        this.#log.debug({ err: error, path: req.url }, "webhook request ended before it was answered");
        res.destroy();
      });
    });
  }

  /** Serves with a new certificate from the next connection on. */
  serveCertificate(tls: TlsMaterial): void {
    this.#server.setSecureContext({ cert: tls.certPem, key: tls.keyPem });
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => resolve());
    });
    return (this.#server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #serve(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) {
    const path = new URL(req.url ?? "/", "https://webhook").pathname;
    const handler = this.#handlers.get(path);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const converts = this.#converts && path === conversionPath;
    if (req.method !== "POST" || (!handler && !converts))
      return reply(404, { message: `no webhook at ${req.method} ${path}` });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > (converts ? maxConversionBytes : maxBodyBytes))
        return reply(413, { message: "request too large" });
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks).toString("utf8");
    if (converts) {
      const conversion = parseConversionReview(body);
      if ("invalid" in conversion) return reply(400, { message: conversion.invalid });
      return reply(200, answerConversion(conversion));
    }
    if (!handler) return reply(404, { message: `no webhook at ${req.method} ${path}` });
    const request = parseReview(body);
    if ("invalid" in request) return reply(400, { message: request.invalid });
    try {
      reply(200, reviewResponse(await handler(request)));
    } catch (error) {
      // failurePolicy Fail: an answer that cannot be given is a refusal, never an admission
      this.#log.error({ err: error, path }, "admission webhook failed");
      reply(
        200,
        reviewResponse(
          refuse(request.uid, `admission webhook ${path} failed: ${(error as Error).message}`, 500),
        ),
      );
    }
  }
}
