/**
 * Runs the operator's webhooks: the serving certificate from its Secret (issued or rotated there when
 * due), the HTTPS server, the CA bundle injected into the webhook configurations and, when it serves
 * conversion, the CRDs' `spec.conversion` (crd-conversion.ts);
 * then looks again every `refreshMs` (sooner after a failure), on every replica (each serves).
 */
import type { Logger } from "pino";
import { isNotFound, type RestClient } from "../kube/rest.ts";
import type { AdmissionHandler } from "./admission-review.ts";
import { injectCaBundle } from "./ca-bundle.ts";
import { type ConversionClientConfig, injectConversion } from "./crd-conversion.ts";
import { WebhookServer } from "./server.ts";
import { ensureServingSecret, type ServingMaterial, type ServingSecretOptions } from "./serving-secret.ts";

export interface WebhookRunnerOptions {
  rest: Pick<RestClient, "request">;
  secret: ServingSecretOptions;
  /** ValidatingWebhookConfigurations whose caBundle the operator keeps. */
  configurations: string[];
  handlers: Record<string, AdmissionHandler>;
  /** Serve the conversion of these CRDs (their `spec.conversion` kept pointing at `clientConfig`). */
  conversion?: { crds: string[]; clientConfig: ConversionClientConfig };
  port: number;
  host: string;
  log: Logger;
  /** Default 10 minutes; a failed look is retried after retryMs (default 5 s). */
  refreshMs?: number;
  retryMs?: number;
}

export class WebhookRunner {
  readonly #options: WebhookRunnerOptions;
  #server: WebhookServer | undefined;
  #served: ServingMaterial | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** The port it listens on, once started. */
  port: number | undefined;

  constructor(options: WebhookRunnerOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { material } = await ensureServingSecret(this.#options.rest, this.#options.secret, new Date());
    this.#served = material;
    this.#server = new WebhookServer(material, this.#options.handlers, this.#options.log, {
      converts: this.#options.conversion !== undefined,
    });
    this.port = await this.#server.listen(this.#options.port, this.#options.host);
    this.#options.log.info({ port: this.port }, "admission webhooks listening");
    await this.#inject(material).then(
      () => this.#schedule(this.#options.refreshMs ?? 600_000),
      () => this.#schedule(this.#options.retryMs ?? 5_000),
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#server?.close();
  }

  #schedule(ms: number) {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.refresh().then(
        () => this.#schedule(this.#options.refreshMs ?? 600_000),
        (error: unknown) => {
          this.#options.log.warn({ err: error }, "webhook certificate or CA bundle not updated; retrying");
          this.#schedule(this.#options.retryMs ?? 5_000);
        },
      );
    }, ms);
    this.#timer.unref();
  }

  /** One look: rotate the certificate if due, serve the Secret's, keep the configurations' caBundle. */
  async refresh(): Promise<void> {
    const { material, rotated } = await ensureServingSecret(
      this.#options.rest,
      this.#options.secret,
      new Date(),
    );
    if (rotated) this.#options.log.info({ reason: rotated }, "webhook serving certificate rotated");
    // the new CA is trusted first (the bundle keeps the previous one), then the new certificate served
    await this.#inject(material);
    if (material.certPem !== this.#served?.certPem) {
      this.#server?.serveCertificate(material);
      this.#served = material;
    }
  }

  async #inject(material: ServingMaterial): Promise<void> {
    for (const name of this.#options.configurations) {
      try {
        if (await injectCaBundle(this.#options.rest, name, material.caBundle))
          this.#options.log.info({ configuration: name }, "webhook CA bundle injected");
      } catch (error) {
        this.#options.log.warn({ err: error, configuration: name }, "webhook CA bundle not injected");
        throw error;
      }
    }
    const conversion = this.#options.conversion;
    for (const crd of conversion?.crds ?? []) {
      try {
        if (
          conversion &&
          (await injectConversion(this.#options.rest, crd, conversion.clientConfig, material.caBundle))
        )
          this.#options.log.info({ crd }, "CRD conversion webhook and CA bundle set");
      } catch (error) {
        // a kind whose CRD is not installed has nothing stored to convert
        if (isNotFound(error)) continue;
        this.#options.log.warn({ err: error, crd }, "CRD conversion webhook not set");
        throw error;
      }
    }
  }
}
