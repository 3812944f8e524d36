/**
 * The registry and the blob store as the configuration describes them, with credentials read from
 * their Secrets in the build's namespace. Clients are kept per namespace so tokens and the
 * registry's auth scheme are learned once.
 */
import type { Client } from "../kube/types.ts";
import { artifactLimits, byteSizeRefusal, objectCountRefusal } from "./artifact-limits.ts";
import type { BlobUri } from "./blob-uri.ts";
import type { BuildsConfig } from "./config.ts";
import type { ArtifactCheck, RegistryCheck } from "./decide.ts";
import type { BuildMetrics } from "./metrics.ts";
import { type ImageReference, registryHost } from "./naming.ts";
import { RegistryClient, RegistryError } from "./registry/client.ts";
import {
  type BasicCredentials,
  CredentialsError,
  credentialsFromDockerConfig,
  googleCredentials,
} from "./registry/credentials.ts";
import { registryAgents } from "./registry/http.ts";
import { SecretNotFoundError, type SecretReader } from "./secrets.ts";
import { type BlobStore, BlobStoreError } from "./storage/blob-store.ts";
import { GcsBlobStore } from "./storage/gcs.ts";
import { S3BlobStore } from "./storage/s3.ts";
import { allowedHosts } from "./tenancy.ts";

export class BuildAccess {
  readonly #config: BuildsConfig;
  readonly #secrets: SecretReader;
  readonly #metrics: BuildMetrics;
  readonly #registries = new Map<string, RegistryClient>();
  /** One connection pool for the registry clients of every namespace. */
  readonly #agents = registryAgents();
  readonly #stores = new Map<string, { store: BlobStore; at: number }>();
  /** Google token sources, per key JSON (they cache the token). */
  readonly #google = new Map<string, () => Promise<BasicCredentials>>();

  constructor(config: BuildsConfig, secrets: SecretReader, metrics: BuildMetrics) {
    this.#config = config;
    this.#secrets = secrets;
    this.#metrics = metrics;
  }

  /** The credentials the registry client and the local backend use; undefined: anonymous. */
  async registryCredentials(
    client: Client,
    namespace: string,
    registry: string,
  ): Promise<BasicCredentials | undefined> {
    const secretName = this.#config.registry.credentialsSecret;
    if (!secretName) return undefined;
    const configured = registryHost(this.#config.registry.url);
    if (registry !== configured)
      throw new CredentialsError(
        `registry ${registry}: the credentials of Secret ${secretName} are only for ${configured} (registry.url)`,
      );
    const data = await this.#secrets.read(client, namespace, secretName);
    if (this.#config.registry.type === "google") {
      const key = data["key.json"];
      if (!key)
        throw new CredentialsError(`Secret ${secretName} has no key.json (a Google service-account key)`);
      let source = this.#google.get(key);
      if (!source) {
        source = googleCredentials(key);
        this.#google.set(key, source);
      }
      return source();
    }
    const dockerConfig = data[".dockerconfigjson"];
    if (!dockerConfig)
      throw new CredentialsError(
        `Secret ${secretName} has no .dockerconfigjson (type kubernetes.io/dockerconfigjson)`,
      );
    const credentials = credentialsFromDockerConfig(dockerConfig, registry);
    if (!credentials)
      throw new CredentialsError(`Secret ${secretName} has no credentials for registry ${registry}`);
    return credentials;
  }

  #registry(client: Client, namespace: string, registry: string): RegistryClient {
    const key = `${namespace} ${registry}`;
    let registryClient = this.#registries.get(key);
    if (!registryClient) {
      registryClient = new RegistryClient({
        registry,
        insecure: this.#config.registry.insecure,
        allowedHosts: allowedHosts(this.#config),
        credentials: () => this.registryCredentials(client, namespace, registry),
        onRequest: (statusClass, seconds) => this.#metrics.observeRegistryRequest(statusClass, seconds),
        agents: this.#agents,
      });
      this.#registries.set(key, registryClient);
    }
    return registryClient;
  }

  async checkImage(client: Client, namespace: string, image: ImageReference): Promise<RegistryCheck> {
    try {
      const digest = await this.#registry(client, namespace, image.registry).manifestDigest(
        image.repository,
        image.tag,
      );
      return digest ? { result: "exists", digest } : { result: "missing" };
    } catch (error) {
      const message = this.#secrets.redact(error instanceof Error ? error.message : String(error));
      if (error instanceof RegistryError) {
        return error.kind === "credentials-rejected"
          ? { result: "rejected", message }
          : { result: "unavailable", message };
      }
      if (error instanceof CredentialsError || error instanceof SecretNotFoundError)
        return { result: "rejected", message };
      return { result: "unavailable", message };
    }
  }

  /** The blob store of the configuration, with credentials from the namespace; undefined when none is configured. */
  async blobStore(client: Client, namespace: string): Promise<BlobStore | undefined> {
    const storage = this.#config.storage;
    if (!storage) return undefined;
    const cached = this.#stores.get(namespace);
    if (cached && Date.now() - cached.at < 60_000) return cached.store;
    let store: BlobStore;
    if (storage.type === "s3") {
      const { credentialsSecret, ...s3 } = storage.s3;
      let credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      if (credentialsSecret) {
        const data = await this.#secrets.read(client, namespace, credentialsSecret);
        const accessKeyId = data.AWS_ACCESS_KEY_ID;
        const secretAccessKey = data.AWS_SECRET_ACCESS_KEY;
        if (!accessKeyId || !secretAccessKey) {
          throw new BlobStoreError(
            "denied",
            `Secret ${credentialsSecret} needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
          );
        }
        credentials = { accessKeyId, secretAccessKey };
      }
      store = new S3BlobStore({ ...s3, ...(credentials ? { credentials } : {}) });
    } else {
      const { credentialsSecret, endpoint } = storage.gcs;
      let serviceAccountKey: Record<string, unknown> | undefined;
      if (credentialsSecret) {
        const key = (await this.#secrets.read(client, namespace, credentialsSecret))["key.json"];
        if (!key) throw new BlobStoreError("denied", `Secret ${credentialsSecret} has no key.json`);
        serviceAccountKey = JSON.parse(key);
      }
      store = new GcsBlobStore({
        ...(serviceAccountKey ? { serviceAccountKey } : {}),
        ...(endpoint ? { endpoint } : {}),
      });
    }
    this.#stores.set(namespace, { store, at: Date.now() });
    return store;
  }

  async checkArtifact(client: Client, namespace: string, artifact: BlobUri): Promise<ArtifactCheck> {
    try {
      const store = await this.blobStore(client, namespace);
      if (!store) return { result: "unconfigured" };
      const limits = artifactLimits(this.#config.artifacts);
      const objects = await store.list(artifact, limits.maxObjects + 1);
      if (objects.length === 0) return { result: "missing" };
      const listed = objects.reduce((sum, object) => sum + object.size, 0);
      const refusal =
        objectCountRefusal(artifact, objects.length, limits) ?? byteSizeRefusal(artifact, listed, limits);
      return refusal ? { result: "tooLarge", message: refusal } : { result: "exists" };
    } catch (error) {
      const message = this.#secrets.redact(error instanceof Error ? error.message : String(error));
      if (error instanceof SecretNotFoundError) return { result: "denied", message };
      if (error instanceof BlobStoreError && error.kind === "denied") return { result: "denied", message };
      return { result: "unavailable", message };
    }
  }
}
