/**
 * The Kaniko Job that builds one image reference: an init container fills a shared workspace from
 * the blob store, Kaniko builds it and pushes with the registry credentials. Pure: (build, config) → Job.
 */
import type { V1Container, V1EnvVar, V1Job, V1Volume, V1VolumeMount } from "@kubernetes/client-node";
import { type ImageBuild, reservedLabelKey } from "../apis/builds/imagebuild.ts";
import { shortHash } from "../kube/canonical.ts";
import { ownerReference } from "../kube/owners.ts";
import type { BlobUri } from "./blob-uri.ts";
import { buildArgsSecretName, crossNamespaceTie, isCrossNamespace, jobNameFor } from "./build-namespace.ts";
import { type BuildsConfig, durationSeconds, type StorageConfig } from "./config.ts";
import { formatImageReference, type ImageReference, registryPrefix } from "./naming.ts";
import { namespacePrefix } from "./tenancy.ts";

export const labels = {
  managedBy: "app.kubernetes.io/managed-by",
  component: "app.kubernetes.io/component",
  image: "builds.slipway.dev/image-hash",
} as const;
export const imageAnnotation = "builds.slipway.dev/image";
export const safeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";

const workspace = "/workspace";
const cacheDir = "/cache";
const registrySecretDir = "/secrets/registry";
const storageSecretDir = "/secrets/storage";

export interface KanikoJobInput {
  /**
   * The build that starts the Job: its spec shapes it and it owns it (as controller), so deleting it
   * deletes the Job; in another namespace (buildNamespace) labels tie the Job to it instead.
   */
  build: ImageBuild;
  image: ImageReference;
  artifact: BlobUri;
  config: BuildsConfig;
  namespace: string;
}

/** The resources of the build container: the platform's defaults, overridden per key by the spec. */
export function buildResources(build: ImageBuild, config: BuildsConfig) {
  return {
    requests: { ...config.kaniko.resources.requests, ...build.spec.resources?.requests },
    limits: { ...config.kaniko.resources.limits, ...build.spec.resources?.limits },
  };
}

export function timeoutSeconds(build: ImageBuild, config: BuildsConfig): number {
  return Math.max(1, durationSeconds(build.spec.timeout ?? config.defaultTimeout));
}

/** The layer cache of the namespace's builds, under its own prefix: one namespace cannot feed another's builds layers. */
function defaultCacheRepository(build: ImageBuild, config: BuildsConfig): string {
  const prefix = namespacePrefix(config, build.metadata.namespace ?? "default");
  return `${registryPrefix(config.registry.url)}/${prefix}kaniko-cache`;
}

function kanikoArgs(input: KanikoJobInput): string[] {
  const { build, config, image } = input;
  const args = [
    `--context=dir://${workspace}`,
    `--dockerfile=${workspace}/${(build.spec.dockerfile ?? "Dockerfile").replace(/^\/+/, "")}`,
    `--destination=${formatImageReference(image)}`,
  ];
  if (build.spec.baseImage) args.push(`--build-arg=BASE_IMAGE=${build.spec.baseImage}`);
  for (const arg of build.spec.buildArgs ?? []) {
    // A secret argument is named only: Kaniko reads its value from the environment, set from the Secret.
    args.push(arg.valueFrom ? `--build-arg=${arg.name}` : `--build-arg=${arg.name}=${arg.value ?? ""}`);
  }
  if (config.kaniko.cache.enabled) {
    args.push(
      "--cache=true",
      `--cache-repo=${config.kaniko.cache.repository ?? defaultCacheRepository(build, config)}`,
    );
    if (config.kaniko.cache.volumeClaim) args.push(`--cache-dir=${cacheDir}`);
  }
  if (config.registry.insecure) args.push("--insecure", "--insecure-pull");
  return [...args, ...config.kaniko.extraArgs];
}

/** `copiedTo`: the Secret next to a Job in another namespace holding the values under the argument names. */
function secretBuildArgEnv(build: ImageBuild, copiedTo?: string): V1EnvVar[] {
  return (build.spec.buildArgs ?? []).flatMap((arg) => {
    if (!arg.valueFrom) return [];
    const secretKeyRef = copiedTo ? { name: copiedTo, key: arg.name } : { ...arg.valueFrom.secretKeyRef };
    return [{ name: arg.name, valueFrom: { secretKeyRef } }];
  });
}

/** The init container that copies every object under the artifact prefix into the workspace. */
function fetcher(artifact: BlobUri, storage: StorageConfig, config: BuildsConfig): V1Container {
  const prefix = artifact.key.endsWith("/") ? artifact.key : `${artifact.key}/`;
  const mounts: V1VolumeMount[] = [{ name: "workspace", mountPath: workspace }];
  const base = {
    name: "fetch-artifact",
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: mounts,
  };
  if (storage.type === "s3") {
    const s3 = storage.s3;
    return {
      ...base,
      image: config.kaniko.fetcherImages.s3,
      command: ["aws", "s3", "cp", "--recursive", "--only-show-errors"],
      args: [
        ...(s3.endpoint ? ["--endpoint-url", s3.endpoint] : []),
        `s3://${artifact.bucket}/${prefix}`,
        workspace,
      ],
      env: [{ name: "AWS_REGION", value: s3.region }],
      ...(s3.credentialsSecret ? { envFrom: [{ secretRef: { name: s3.credentialsSecret } }] } : {}),
    };
  }
  const gcs = storage.gcs;
  const env: V1EnvVar[] = [];
  if (gcs.credentialsSecret) {
    mounts.push({ name: "storage-credentials", mountPath: storageSecretDir, readOnly: true });
    env.push({ name: "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", value: `${storageSecretDir}/key.json` });
  }
  if (gcs.endpoint) {
    env.push({
      name: "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE",
      value: `${gcs.endpoint.replace(/\/+$/, "")}/storage/v1/`,
    });
  }
  return {
    ...base,
    image: config.kaniko.fetcherImages.gcs,
    command: ["gcloud", "storage", "cp", "--recursive"],
    args: [`gs://${artifact.bucket}/${prefix}*`, `${workspace}/`],
    ...(env.length ? { env } : {}),
  };
}

function registryCredentials(config: BuildsConfig): {
  volumes: V1Volume[];
  mounts: V1VolumeMount[];
  env: V1EnvVar[];
} {
  const secretName = config.registry.credentialsSecret;
  if (!secretName) return { volumes: [], mounts: [], env: [] };
  if (config.registry.type === "docker") {
    return {
      volumes: [
        {
          name: "registry-credentials",
          secret: { secretName, items: [{ key: ".dockerconfigjson", path: "config.json" }] },
        },
      ],
      mounts: [{ name: "registry-credentials", mountPath: "/kaniko/.docker", readOnly: true }],
      env: [],
    };
  }
  return {
    volumes: [
      {
        name: "registry-credentials",
        secret: { secretName, items: [{ key: "key.json", path: "key.json" }] },
      },
    ],
    mounts: [{ name: "registry-credentials", mountPath: registrySecretDir, readOnly: true }],
    env: [{ name: "GOOGLE_APPLICATION_CREDENTIALS", value: `${registrySecretDir}/key.json` }],
  };
}

/** The spec's labels (without reserved keys, which the API server refuses for new objects) and the operator's. */
export function jobLabels(build: ImageBuild, reference: string): Record<string, string> {
  const own = Object.entries(build.spec.labels ?? {}).filter(([key]) => !reservedLabelKey(key));
  return {
    ...Object.fromEntries(own),
    [labels.managedBy]: "slipway",
    [labels.component]: "image-build",
    [labels.image]: shortHash(reference, 16),
  };
}

/** The pod's volumes (workspace, credentials, base-image cache) and those the Kaniko container mounts. */
function podVolumes(
  config: BuildsConfig,
  storage: NonNullable<BuildsConfig["storage"]>,
  registry: { volumes: V1Volume[]; mounts: V1VolumeMount[] },
) {
  const volumes: V1Volume[] = [{ name: "workspace", emptyDir: {} }, ...registry.volumes];
  if (storage.type === "gcs" && storage.gcs.credentialsSecret) {
    const secretName = storage.gcs.credentialsSecret;
    volumes.push({
      name: "storage-credentials",
      secret: { secretName, items: [{ key: "key.json", path: "key.json" }] },
    });
  }
  const kanikoMounts: V1VolumeMount[] = [{ name: "workspace", mountPath: workspace }, ...registry.mounts];
  if (config.kaniko.cache.enabled && config.kaniko.cache.volumeClaim) {
    volumes.push({
      name: "builder-cache",
      persistentVolumeClaim: { claimName: config.kaniko.cache.volumeClaim },
    });
    kanikoMounts.push({ name: "builder-cache", mountPath: cacheDir });
  }
  return { volumes, kanikoMounts };
}

export function renderKanikoJob(input: KanikoJobInput): V1Job {
  const { build, config, artifact } = input;
  const storage = config.storage;
  if (!storage) throw new Error("renderKanikoJob: no blob store configured");
  const reference = formatImageReference(input.image);
  const registry = registryCredentials(config);
  const { volumes, kanikoMounts } = podVolumes(config, storage, registry);
  const jobName = jobNameFor(build, input.namespace, reference);
  // an owner reference cannot cross namespaces: a Job in the build namespace is tied by labels
  const tie = isCrossNamespace(build, input.namespace) ? crossNamespaceTie(build) : undefined;
  const env = [...registry.env, ...secretBuildArgEnv(build, tie ? buildArgsSecretName(jobName) : undefined)];
  const kaniko: V1Container = {
    name: "kaniko",
    image: config.kaniko.image,
    args: kanikoArgs(input),
    resources: buildResources(build, config),
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: kanikoMounts,
    ...(env.length ? { env } : {}),
  };
  const podLabels = jobLabels(build, reference);
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: jobName,
      namespace: input.namespace,
      labels: { ...podLabels, ...tie?.labels },
      annotations: { [imageAnnotation]: reference, ...tie?.annotations },
      ...(tie ? {} : { ownerReferences: [ownerReference(build)] }),
    },
    spec: {
      backoffLimit: build.spec.backoffLimit ?? config.defaultBackoffLimit,
      activeDeadlineSeconds: timeoutSeconds(build, config),
      ttlSecondsAfterFinished: config.kaniko.ttlSecondsAfterFinished,
      template: {
        metadata: {
          labels: podLabels,
          annotations: { ...config.kaniko.podAnnotations, [safeToEvict]: "false" },
        },
        spec: {
          restartPolicy: "Never",
          ...(config.kaniko.serviceAccount ? { serviceAccountName: config.kaniko.serviceAccount } : {}),
          ...(config.kaniko.nodeSelector ? { nodeSelector: config.kaniko.nodeSelector } : {}),
          ...(config.kaniko.tolerations.length ? { tolerations: config.kaniko.tolerations } : {}),
          initContainers: [fetcher(artifact, storage, config)],
          containers: [kaniko],
          volumes,
        },
      },
    },
  };
}
