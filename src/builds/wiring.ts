/**
 * The builds configuration of each namespace, and what serves it (registry and blob-store access, the
 * backend): the operator's, or the operator's with the namespace's override ConfigMap merged over it.
 * An override is parsed and validated once per change of its ConfigMap, not on every reconcile.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { BuildAccess } from "./access.ts";
import { type BuildBackend, JobBackend, LocalBackend } from "./backends.ts";
import { type BuildsConfig, configEnvironmentVariable, devModeEnvironmentVariable } from "./config.ts";
import type { Blocked } from "./decide.ts";
import { LocalBuilder } from "./local-builder.ts";
import type { BuildMetrics } from "./metrics.ts";
import { type AmbientCredentials, applyOverride, noAmbientCredentials, type Vouching } from "./override.ts";
import type { SecretReader } from "./secrets.ts";

export interface Wiring {
  /** The operator's own configuration: what the platform grants the namespace (tenancy). */
  platform: BuildsConfig;
  /** The namespace's: the platform's, with its override merged. */
  config: BuildsConfig;
  access: BuildAccess;
  backend: BuildBackend;
}

export type WiringResult = { wiring: Wiring } | { blocker: Blocked["blocker"] };

const notConfigured: Blocked["blocker"] = {
  reason: "NotConfigured",
  message: `the operator has no image-build configuration: set ${configEnvironmentVariable} to its file`,
};

const localOutsideDevMode: Blocked["blocker"] = {
  reason: "NotConfigured",
  message: `backend: local runs every build on the operator's own machine: allowed only in dev mode (${devModeEnvironmentVariable}=1, as slipway dev runs the operator)`,
};

export class Wirings {
  readonly #base: BuildsConfig | undefined;
  readonly #secrets: SecretReader;
  readonly #metrics: BuildMetrics;
  readonly #devMode: boolean;
  readonly #ambient: AmbientCredentials;
  #baseWiring: Wiring | undefined;
  /** Per namespace with an override ConfigMap: its resourceVersion and what its owner vouches for, and what they made. */
  readonly #overrides = new Map<string, { version: string; result: WiringResult }>();
  /** One builder for every configuration: local runs are keyed by image reference across namespaces. */
  #localBuilder: LocalBuilder | undefined;

  constructor(options: {
    base: BuildsConfig | undefined;
    secrets: SecretReader;
    metrics: BuildMetrics;
    localBuilder?: LocalBuilder;
    devMode?: boolean;
    ambientCredentials?: AmbientCredentials;
  }) {
    this.#devMode = options.devMode ?? false;
    this.#ambient = options.ambientCredentials ?? noAmbientCredentials;
    this.#base = options.base;
    this.#secrets = options.secrets;
    this.#metrics = options.metrics;
    this.#localBuilder = options.localBuilder;
  }

  /**
   * The wiring of builds in `namespace`, whose override ConfigMap is `configMap` (if any), controlled
   * by an owner that vouches for `vouched` (if a trusted one does).
   */
  for(namespace: string, configMap: V1ConfigMap | undefined, vouched?: Vouching): WiringResult {
    if (!this.#base) return { blocker: notConfigured };
    if (this.#base.backend === "local" && !this.#devMode) return { blocker: localOutsideDevMode };
    if (!configMap) {
      this.#overrides.delete(namespace);
      this.#baseWiring ??= this.#wire(this.#base);
      return { wiring: this.#baseWiring };
    }
    const version = `${configMap.metadata?.resourceVersion ?? ""} ${JSON.stringify(vouched ?? null)}`;
    const known = this.#overrides.get(namespace);
    if (known?.version === version) return known.result;
    const overridden = applyOverride(this.#base, namespace, configMap.data ?? {}, vouched, this.#ambient);
    const result: WiringResult =
      "error" in overridden
        ? { blocker: { reason: "InvalidOverride", message: overridden.error } }
        : { wiring: this.#wire(overridden.config, overridden.platform) };
    this.#overrides.set(namespace, { version, result });
    return result;
  }

  #wire(config: BuildsConfig, platform: BuildsConfig = this.#base ?? config): Wiring {
    const access = new BuildAccess(config, this.#secrets, this.#metrics);
    if (config.backend !== "local")
      return { platform, config, access, backend: new JobBackend(config.backend, config, this.#secrets) };
    this.#localBuilder ??= new LocalBuilder(config.local.storageRoot);
    const backend = new LocalBackend(config, this.#localBuilder, access, this.#secrets);
    return { platform, config, access, backend };
  }
}
