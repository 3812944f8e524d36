/**
 * The operator's image-build configuration (a YAML/JSON file given to the operator, rendered from the
 * Helm values under `builds:`). One TypeBox schema validates it and fills the defaults.
 */
import { readFileSync } from "node:fs";
import { type ObjectOptions, type Static, type TProperties, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { durationPattern } from "../apis/duration.ts";
import { ObjectName } from "../apis/schema.ts";
import { ownVersion } from "../apis/version.ts";
import { quantityValue } from "../lib/quantity.ts";
import { describeProblem, schemaProblem } from "../lib/schema-problem.ts";
import { parseYaml } from "../lib/yaml.ts";
import { defaultImageTemplate } from "./naming.ts";

/** Names the operator's builds configuration file. */
export const configEnvironmentVariable = "SLIPWAY_BUILDS_CONFIG";
/** `1`: the operator runs in dev mode (slipway dev), the only one where the `local` backend may build. */
export const devModeEnvironmentVariable = "SLIPWAY_DEV_MODE";

export function devModeFromEnvironment(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[devModeEnvironmentVariable] === "1";
}

/**
 * An object of the configuration: a field it does not define is refused, naming it (a misspelt or
 * outdated field would otherwise be ignored and its setting silently lost).
 */
const Fields = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

const StringMap = () => Type.Record(Type.String(), Type.String());

const SecretName = ObjectName();

export const RegistryConfig = Fields({
  type: Type.Union([Type.Literal("docker"), Type.Literal("google")], { default: "docker" }),
  /** Registry host and optional path prefix, e.g. `localhost:5000`, `docker.io/acme`, `europe-docker.pkg.dev/p/repo`. */
  url: Type.String({ minLength: 1 }),
  /** docker: a kubernetes.io/dockerconfigjson Secret; google: a Secret with a service-account key under `key.json`. */
  credentialsSecret: Type.Optional(SecretName),
  /** Plain HTTP (the in-cluster registry). */
  insecure: Type.Boolean({ default: false }),
  /**
   * docker, a registry whose token issuer takes per-build credentials (the platform's: docs/builds.md):
   * each build pod pushes with a credential of its own, minted by the operator for its one repository
   * (and pull on its base image's) until its timeout, instead of `credentialsSecret`, which the operator
   * alone then uses. The Secret (in the Job's namespace) and key of the issuer's HMAC key.
   */
  scopedCredentials: Type.Optional(
    Fields({
      secret: SecretName,
      key: Type.String({ minLength: 1, maxLength: 253, pattern: "^[-._a-zA-Z0-9]+$" }),
    }),
  ),
});

export const StorageConfig = Fields({
  type: Type.Union([Type.Literal("s3"), Type.Literal("gcs")]),
  s3: Fields(
    {
      endpoint: Type.Optional(Type.String({ minLength: 1 })),
      region: Type.String({ default: "us-east-1" }),
      forcePathStyle: Type.Boolean({ default: false }),
      /** A Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; none means the ambient AWS credentials. */
      credentialsSecret: Type.Optional(SecretName),
    },
    { default: {} },
  ),
  gcs: Fields(
    {
      /** A Secret with a service-account key under `key.json`; none means the ambient Google credentials. */
      credentialsSecret: Type.Optional(SecretName),
      /** An emulator, e.g. http://127.0.0.1:4443. */
      endpoint: Type.Optional(Type.String({ minLength: 1 })),
    },
    { default: {} },
  ),
});

const Toleration = Fields({
  key: Type.Optional(Type.String()),
  operator: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
  effect: Type.Optional(Type.String()),
  tolerationSeconds: Type.Optional(Type.Integer()),
});

export const KanikoConfig = Fields(
  {
    image: Type.String({ default: "ghcr.io/osscontainertools/kaniko:latest" }),
    extraArgs: Type.Array(Type.String(), { default: [] }),
    resources: Fields(
      {
        requests: StringMap(),
        limits: StringMap(),
      },
      // 4Gi is known to be OOM-killed when the build installs a cloud CLI.
      { default: { requests: { cpu: "1", memory: "2Gi" }, limits: { memory: "8Gi" } } },
    ),
    serviceAccount: Type.Optional(Type.String({ minLength: 1 })),
    nodeSelector: Type.Optional(StringMap()),
    tolerations: Type.Array(Toleration, { default: [] }),
    /** Extra annotations of the build pod (e.g. a sidecar opt-out). */
    podAnnotations: Type.Optional(StringMap()),
    cache: Fields(
      {
        enabled: Type.Boolean({ default: true }),
        /** Repository of the layer cache; default `<registry>/kaniko-cache`. */
        repository: Type.Optional(Type.String({ minLength: 1 })),
        /** A PersistentVolumeClaim mounted as Kaniko's base-image cache (`--cache-dir`). */
        volumeClaim: Type.Optional(Type.String({ minLength: 1 })),
      },
      { default: {} },
    ),
    ttlSecondsAfterFinished: Type.Integer({ minimum: 0, default: 3600 }),
  },
  { default: {} },
);

/** Slipway's buildah image (tools/images/buildah/image.sh): Debian's buildah 1.28 set up for rootless builds. */
export const defaultBuildahImage = "ghcr.io/slipway-dev/buildah:1.28.2";

/** The buildah Job, and the steps that push a Kaniko Job's image (kaniko-job.ts); the rest of its pod (resources, placement, service account, TTL) is under `kaniko`. */
export const BuildahConfig = Fields(
  {
    image: Type.String({ minLength: 1, default: defaultBuildahImage }),
    /** Appended to `buildah bud`. */
    extraArgs: Type.Array(Type.String(), { default: [] }),
  },
  { default: {} },
);

/** Slipway's own image (this release's): its `fetch-artifact` step fills a build Job's workspace within the limits. */
export const defaultFetcherImage = `ghcr.io/slipway-dev/slipway:${ownVersion}`;

/** How much of the blob store one build may fetch, and the image of the Jobs' step that fetches it. */
export const ArtifactsConfig = Fields(
  {
    /** The most bytes one build's artifact may have (a quantity: 2Gi, 500Mi, 1e9). */
    maxBytes: Type.String({
      pattern: "^[0-9]+(\\.[0-9]+)?([eE][0-9]+|Ki|Mi|Gi|Ti|k|M|G|T)?$",
      default: "2Gi",
    }),
    /** The most objects one build's artifact may have. */
    maxObjects: Type.Integer({ minimum: 1, default: 10_000 }),
    fetcherImage: Type.String({ minLength: 1, default: defaultFetcherImage }),
  },
  { default: {} },
);

/** A repository prefix under registry.url's path: empty (the whole path) or path components ending in "/"; `{namespace}` is the build's namespace. */
const repositoryPrefixPattern = "^([a-z0-9._{}-]+/)*$";
const RepositoryPrefix = Type.String({ pattern: repositoryPrefixPattern });

/** What the platform grants one namespace beyond the default. */
const NamespaceGrant = Fields({
  /** Its repositories instead of the default prefix; "" is everything under registry.url. */
  repositoryPrefix: Type.Optional(RepositoryPrefix),
  /** May its override ConfigMap choose another registry (host, type, plain HTTP)? */
  registryOverride: Type.Optional(Type.Boolean()),
  /** In the shared build namespace: the Secret (dockerconfigjson) its build pods push with, scoped to its repositories. */
  pushSecret: Type.Optional(SecretName),
});

/** What a namespace's builds may make the operator do with the platform's credentials. */
export const TenancyConfig = Fields(
  {
    /** The repositories a namespace's builds push to, under registry.url's path. */
    repositoryPrefix: Type.String({ pattern: repositoryPrefixPattern, default: "{namespace}/" }),
    /** Hosts (host[:port]) a namespace's override may point storage at, and Bearer token realms may be on, beyond the platform's own registry and storage endpoints. */
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    namespaces: Type.Record(Type.String(), NamespaceGrant, { default: {} }),
    /** In the shared build namespace: the most a build pod may request or be limited to, per resource (e.g. memory: 16Gi). */
    maxResources: Type.Record(Type.String(), Type.String({ minLength: 1 }), { default: {} }),
  },
  { default: {} },
);

export const BuildsConfig = Fields({
  /**
   * kaniko: a Kaniko Job per image on the cluster; buildah: a buildah Job per image (rootless, no
   * privileges); local: buildah on the operator's machine (the default of `slipway dev`).
   */
  backend: Type.Union([Type.Literal("kaniko"), Type.Literal("buildah"), Type.Literal("local")], {
    default: "kaniko",
  }),
  registry: RegistryConfig,
  storage: Type.Optional(StorageConfig),
  naming: Fields({ image: Type.String({ minLength: 1, default: defaultImageTemplate }) }, { default: {} }),
  kaniko: KanikoConfig,
  buildah: BuildahConfig,
  local: Fields(
    {
      /** buildah's storage root; default a directory under the system temp dir. */
      storageRoot: Type.Optional(Type.String({ minLength: 1 })),
    },
    { default: {} },
  ),
  /** Namespace of the build Jobs and the credentials Secrets; default the ImageBuild's own namespace. */
  buildNamespace: Type.Optional(Type.String({ minLength: 1 })),
  defaultTimeout: Type.String({ pattern: durationPattern, default: "30m" }),
  defaultBackoffLimit: Type.Integer({ minimum: 0, default: 2 }),
  /** Builds running at once; further builds stay Pending until one finishes. */
  maxConcurrentBuilds: Type.Integer({ minimum: 1, default: 10 }),
  tenancy: TenancyConfig,
  artifacts: ArtifactsConfig,
});

export type BuildsConfig = Static<typeof BuildsConfig>;
export type RegistryConfig = Static<typeof RegistryConfig>;
export type StorageConfig = Static<typeof StorageConfig>;
export type TenancyConfig = Static<typeof TenancyConfig>;
export type ArtifactsConfig = Static<typeof ArtifactsConfig>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Validates a parsed configuration and fills its defaults; the error names the field and the rule. */
export function parseBuildsConfig(input: unknown): BuildsConfig {
  const withDefaults = Value.Default(BuildsConfig, structuredClone(input ?? {}));
  const problem = schemaProblem(BuildsConfig, withDefaults);
  if (problem) throw new ConfigError(`builds configuration: ${describeProblem(problem)}`);
  const config = withDefaults as BuildsConfig;
  // buildah pushes with a docker config; a Google service-account key is Kaniko's (its credential helper)
  if (config.backend === "buildah" && config.registry.type === "google")
    throw new ConfigError(
      "builds configuration: registry.type: google is not supported by backend buildah (it pushes with a docker config Secret: use type docker, or backend kaniko)",
    );
  if (config.registry.type === "google" && config.registry.scopedCredentials)
    throw new ConfigError(
      "builds configuration: registry.scopedCredentials: only for registry.type docker (a registry whose token issuer takes them)",
    );
  if ((quantityValue(config.artifacts.maxBytes) ?? 0) < 1)
    throw new ConfigError("builds configuration: artifacts.maxBytes: must be at least 1 byte");
  return config;
}

/**
 * The operator's configuration, read once at its start from the file $SLIPWAY_BUILDS_CONFIG names;
 * undefined when the variable is not set (every ImageBuild then fails, saying so). A file that cannot
 * be read or parsed, or breaks a rule, is one ConfigError line naming the file and the field.
 */
export function buildsConfigFromEnvironment(env: NodeJS.ProcessEnv = process.env): BuildsConfig | undefined {
  const path = env[configEnvironmentVariable];
  if (!path) return undefined;
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    throw new ConfigError(`builds configuration ${path} (${configEnvironmentVariable}): ${reason}`);
  }
  try {
    return parseBuildsConfig(parsed);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const rule = error.message.replace(/^builds configuration: /, "");
    throw new ConfigError(`builds configuration ${path} (${configEnvironmentVariable}): ${rule}`);
  }
}

/**
 * The configuration `slipway dev` runs the operator with: the `local` backend (buildah on this
 * machine, no container runtime needed), a plain-HTTP registry and an S3-compatible store.
 */
export function devBuildsConfig(options: {
  registryUrl: string;
  registryCredentialsSecret?: string;
  s3Endpoint: string;
  s3CredentialsSecret?: string;
  storageRoot?: string;
}): BuildsConfig {
  return parseBuildsConfig({
    backend: "local",
    registry: {
      url: options.registryUrl,
      insecure: true,
      ...(options.registryCredentialsSecret ? { credentialsSecret: options.registryCredentialsSecret } : {}),
    },
    storage: {
      type: "s3",
      s3: {
        endpoint: options.s3Endpoint,
        forcePathStyle: true,
        ...(options.s3CredentialsSecret ? { credentialsSecret: options.s3CredentialsSecret } : {}),
      },
    },
    ...(options.storageRoot ? { local: { storageRoot: options.storageRoot } } : {}),
    // one person's machine: every namespace's images directly under the registry
    tenancy: { repositoryPrefix: "" },
  });
}
