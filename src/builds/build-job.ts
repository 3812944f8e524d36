/**
 * What every in-cluster build Job shares, whichever builder runs in it (Kaniko, buildah): its name,
 * labels and tie to the build, deadline, retries and TTL, the init container that fills the workspace
 * from the blob store, the storage and registry credentials volumes, secret build arguments from the
 * environment. A backend adds its own containers. Pure: (build, config) → parts of a Job.
 */
import type {
  V1Container,
  V1EnvVar,
  V1Job,
  V1SecurityContext,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import { type ImageBuild, reservedLabelKey } from "../apis/builds/imagebuild.ts";
import { durationSeconds } from "../apis/duration.ts";
import { ownerReference } from "../kube/owners.ts";
import { shortHash } from "../lib/canonical.ts";
import { artifactLimitExitCode } from "./artifact-limits.ts";
import { type BlobUri, formatBlobUri } from "./blob-uri.ts";
import {
  buildArgsSecretName,
  crossNamespaceTie,
  isCrossNamespace,
  jobNameFor,
  registryCredentialsSecretName,
} from "./build-namespace.ts";
import type { ArtifactsConfig, BuildsConfig, StorageConfig } from "./config.ts";
import { formatImageReference, type ImageReference } from "./naming.ts";

export const buildJobLabels = {
  managedBy: "app.kubernetes.io/managed-by",
  component: "app.kubernetes.io/component",
  image: "builds.slipway.dev/image-hash",
} as const;
export const imageAnnotation = "builds.slipway.dev/image";
export const safeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";

export const workspace = "/workspace";
/** The init container that fills the workspace from the blob store. */
export const fetcherContainer = "fetch-artifact";
export const registrySecretDir = "/secrets/registry";
const storageSecretDir = "/secrets/storage";

export interface BuildJobInput {
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

/** The Dockerfile's path in the workspace. */
export function dockerfilePath(build: ImageBuild): string {
  return `${workspace}/${(build.spec.dockerfile ?? "Dockerfile").replace(/^\/+/, "")}`;
}

/**
 * Each build argument as the builder's `--build-arg` value: `NAME=value`, or only `NAME` for a
 * secret one (the builder reads its value from the environment, set from the Secret).
 */
export function buildArgValues(build: ImageBuild): string[] {
  const values = build.spec.baseImage ? [`BASE_IMAGE=${build.spec.baseImage}`] : [];
  for (const arg of build.spec.buildArgs ?? [])
    values.push(arg.valueFrom ? arg.name : `${arg.name}=${arg.value ?? ""}`);
  return values;
}

/**
 * The environment of secret build arguments: from the build's own Secrets, or, for a Job in another
 * namespace, from the copy next to it (one key per argument name).
 */
export function secretBuildArgEnv(input: BuildJobInput): V1EnvVar[] {
  const { build } = input;
  const copiedTo = isCrossNamespace(build, input.namespace)
    ? buildArgsSecretName(jobNameFor(input.build, input.namespace, formatImageReference(input.image)))
    : undefined;
  return (build.spec.buildArgs ?? []).flatMap((arg) => {
    if (!arg.valueFrom) return [];
    const secretKeyRef = copiedTo ? { name: copiedTo, key: arg.name } : { ...arg.valueFrom.secretKeyRef };
    return [{ name: arg.name, valueFrom: { secretKeyRef } }];
  });
}

/** The fetcher's user: any non-root one (it only reads the blob store and writes the emptyDir workspace). */
export const fetcherUser = 65532;

/** The artifact fetcher needs no privilege at all: a non-root user, no capabilities, the runtime's seccomp profile. */
export const fetcherSecurityContext: V1SecurityContext = {
  runAsNonRoot: true,
  runAsUser: fetcherUser,
  runAsGroup: fetcherUser,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
};

/** Where the fetcher runs in Slipway's image (its WORKDIR), and how: the compiled JavaScript, as the operator runs. */
const fetcherWorkingDir = "/app";
export const fetcherCommand = ["/nodejs/bin/node", "dist/builds/fetch-artifact.js"];

/** The storage configuration the fetcher reads its store from: everything but the names of Secrets. */
function fetcherStorage(storage: StorageConfig): StorageConfig {
  const { credentialsSecret: _s3Secret, ...s3 } = storage.s3;
  const { credentialsSecret: _gcsSecret, ...gcs } = storage.gcs;
  return { type: storage.type, s3, gcs };
}

/**
 * The init container that copies every object under the artifact prefix into the workspace: Slipway's
 * own fetcher (src/builds/fetch-artifact.ts), which streams them to disk within artifacts.maxBytes and
 * maxObjects and exits with artifactLimitExitCode over a limit. Credentials: S3's keys as its
 * environment (envFrom the Secret, read by the AWS SDK), GCS's key file (GOOGLE_APPLICATION_CREDENTIALS).
 */
export function fetcher(artifact: BlobUri, storage: StorageConfig, artifacts: ArtifactsConfig): V1Container {
  const mounts: V1VolumeMount[] = [{ name: "workspace", mountPath: workspace }];
  const env: V1EnvVar[] = [{ name: "HOME", value: "/tmp" }];
  if (storage.type === "gcs" && storage.gcs.credentialsSecret) {
    mounts.push({ name: "storage-credentials", mountPath: storageSecretDir, readOnly: true });
    env.push({ name: "GOOGLE_APPLICATION_CREDENTIALS", value: `${storageSecretDir}/key.json` });
  }
  const s3Secret = storage.type === "s3" ? storage.s3.credentialsSecret : undefined;
  return {
    name: fetcherContainer,
    image: artifacts.fetcherImage,
    command: fetcherCommand,
    workingDir: fetcherWorkingDir,
    args: [
      `--max-bytes=${artifacts.maxBytes}`,
      `--max-objects=${artifacts.maxObjects}`,
      `--storage=${JSON.stringify(fetcherStorage(storage))}`,
      formatBlobUri(artifact),
      workspace,
    ],
    env,
    ...(s3Secret ? { envFrom: [{ secretRef: { name: s3Secret } }] } : {}),
    terminationMessagePolicy: "FallbackToLogsOnError",
    securityContext: fetcherSecurityContext,
    volumeMounts: mounts,
  };
}

/**
 * The Secret the build pod pushes with: with `registry.scopedCredentials` the Job's own per-build
 * credential (minted by the operator for the build's repository: build-credential.ts), whatever the
 * namespace; otherwise in its own namespace the registry's credentials Secret, and in the shared build
 * namespace the build's namespace's own push Secret (tenancy.namespaces.<ns>.pushSecret), never the
 * platform's credentials, which a Dockerfile's RUN step could read (Kaniko runs RUN steps in the
 * container that holds them).
 */
export function pushCredentialsSecret(
  input: Pick<BuildJobInput, "build" | "config" | "namespace" | "image">,
): string | undefined {
  const { build, config } = input;
  if (config.registry.scopedCredentials)
    return registryCredentialsSecretName(
      jobNameFor(build, input.namespace, formatImageReference(input.image)),
    );
  if (!isCrossNamespace(build, input.namespace)) return config.registry.credentialsSecret;
  return config.tenancy.namespaces[build.metadata.namespace ?? ""]?.pushSecret;
}

/**
 * The volume of the push credentials Secret, if there is one: a dockerconfigjson as `config.json`
 * (docker), a service-account key as `key.json` (google).
 */
export function registryCredentialsVolume(input: BuildJobInput): V1Volume | undefined {
  const { config } = input;
  const secretName = pushCredentialsSecret(input);
  if (!secretName) return undefined;
  const item =
    config.registry.type === "docker"
      ? { key: ".dockerconfigjson", path: "config.json" }
      : { key: "key.json", path: "key.json" };
  return { name: "registry-credentials", secret: { secretName, items: [item] } };
}

/** The volume of the fetcher's GCS key, if one is configured. */
export function storageCredentialsVolume(storage: StorageConfig): V1Volume | undefined {
  if (storage.type !== "gcs" || !storage.gcs.credentialsSecret) return undefined;
  const secretName = storage.gcs.credentialsSecret;
  return {
    name: "storage-credentials",
    secret: { secretName, items: [{ key: "key.json", path: "key.json" }] },
  };
}

/** The spec's labels (without reserved keys, which the API server refuses for new objects) and the operator's. */
export function jobLabels(build: ImageBuild, reference: string): Record<string, string> {
  const own = Object.entries(build.spec.labels ?? {}).filter(([key]) => !reservedLabelKey(key));
  return {
    ...Object.fromEntries(own),
    [buildJobLabels.managedBy]: "slipway",
    [buildJobLabels.component]: "image-build",
    [buildJobLabels.image]: shortHash(reference, 16),
  };
}

/**
 * What a backend puts in the build pod: the containers after the artifact fetch, and its own volumes
 * (the shared ones are renderBuildJob's: sharedVolumes).
 */
export interface BuildPod {
  /** Run in order after `fetch-artifact`. */
  initContainers: V1Container[];
  containers: V1Container[];
  volumes: V1Volume[];
}

/**
 * The volumes every build pod has: the `workspace` the fetcher fills and the builder reads, the push
 * credentials (registryCredentialsVolume) and the fetcher's GCS key, where there are any.
 */
function sharedVolumes(input: BuildJobInput, storage: StorageConfig): V1Volume[] {
  const credentials = [registryCredentialsVolume(input), storageCredentialsVolume(storage)];
  return [{ name: "workspace", emptyDir: {} }, ...credentials.filter((volume) => volume !== undefined)];
}

/**
 * The Job of one image reference around a backend's containers: named after the reference, owned by
 * the build (or tied to it by labels in another namespace), deadline = the build's timeout, retries =
 * its backoffLimit, `fetch-artifact` first.
 */
export function renderBuildJob(input: BuildJobInput, pod: BuildPod): V1Job {
  const { build, config, artifact } = input;
  const storage = config.storage;
  if (!storage) throw new Error("renderBuildJob: no blob store configured");
  const reference = formatImageReference(input.image);
  // an owner reference cannot cross namespaces: a Job in the build namespace is tied by labels
  const tie = isCrossNamespace(build, input.namespace) ? crossNamespaceTie(build) : undefined;
  const podLabels = jobLabels(build, reference);
  const job = config.kaniko;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: jobNameFor(build, input.namespace, reference),
      namespace: input.namespace,
      labels: { ...podLabels, ...tie?.labels },
      annotations: { [imageAnnotation]: reference, ...tie?.annotations },
      ...(tie ? {} : { ownerReferences: [ownerReference(build)] }),
    },
    spec: {
      backoffLimit: build.spec.backoffLimit ?? config.defaultBackoffLimit,
      activeDeadlineSeconds: timeoutSeconds(build, config),
      ttlSecondsAfterFinished: job.ttlSecondsAfterFinished,
      // an artifact over the limits fails the Job at once: another pod would fetch the same objects
      podFailurePolicy: {
        rules: [
          {
            action: "FailJob",
            onExitCodes: { containerName: fetcherContainer, operator: "In", values: [artifactLimitExitCode] },
          },
        ],
      },
      template: {
        metadata: {
          labels: podLabels,
          annotations: { ...job.podAnnotations, [safeToEvict]: "false" },
        },
        spec: {
          restartPolicy: "Never",
          // nothing in a build pod talks to the API server: no token a Dockerfile could read
          automountServiceAccountToken: false,
          // nor the cluster's Services as environment variables
          enableServiceLinks: false,
          ...(job.serviceAccount ? { serviceAccountName: job.serviceAccount } : {}),
          ...(job.nodeSelector ? { nodeSelector: job.nodeSelector } : {}),
          ...(job.tolerations.length ? { tolerations: job.tolerations } : {}),
          initContainers: [fetcher(artifact, storage, config.artifacts), ...pod.initContainers],
          containers: pod.containers,
          volumes: [...sharedVolumes(input, storage), ...pod.volumes],
        },
      },
    },
  };
}
