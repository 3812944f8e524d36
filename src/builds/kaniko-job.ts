/**
 * The Kaniko Job that builds one image reference: an init container fills a shared workspace from
 * the blob store, Kaniko builds it and pushes with the registry credentials. Pure: (build, config) → Job.
 * The Job around the Kaniko container is the shared one of build-job.ts.
 */
import type { V1Container, V1EnvVar, V1Job, V1Volume, V1VolumeMount } from "@kubernetes/client-node";
import type { ImageBuild } from "../apis/builds/imagebuild.ts";
import {
  type BuildJobInput,
  buildArgValues,
  buildResources,
  dockerfilePath,
  registryCredentialsVolume,
  registrySecretDir,
  renderBuildJob,
  secretBuildArgEnv,
  storageCredentialsVolume,
  workspace,
} from "./build-job.ts";
import type { BuildsConfig } from "./config.ts";
import { formatImageReference, registryPrefix } from "./naming.ts";
import { namespacePrefix } from "./tenancy.ts";

const cacheDir = "/cache";

export type KanikoJobInput = BuildJobInput;

/** The layer cache of the namespace's builds, under its own prefix: one namespace cannot feed another's builds layers. */
function defaultCacheRepository(build: ImageBuild, config: BuildsConfig): string {
  const prefix = namespacePrefix(config, build.metadata.namespace ?? "default");
  return `${registryPrefix(config.registry.url)}/${prefix}kaniko-cache`;
}

function kanikoArgs(input: KanikoJobInput): string[] {
  const { build, config, image } = input;
  const args = [
    `--context=dir://${workspace}`,
    `--dockerfile=${dockerfilePath(build)}`,
    `--destination=${formatImageReference(image)}`,
    // A secret argument is named only: Kaniko reads its value from the environment, set from the Secret.
    ...buildArgValues(build).map((value) => `--build-arg=${value}`),
  ];
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

/** Where Kaniko finds the registry credentials: its docker config directory, or Google's key file. */
function registryCredentials(config: BuildsConfig): { mounts: V1VolumeMount[]; env: V1EnvVar[] } {
  if (!config.registry.credentialsSecret) return { mounts: [], env: [] };
  if (config.registry.type === "docker")
    return {
      mounts: [{ name: "registry-credentials", mountPath: "/kaniko/.docker", readOnly: true }],
      env: [],
    };
  return {
    mounts: [{ name: "registry-credentials", mountPath: registrySecretDir, readOnly: true }],
    env: [{ name: "GOOGLE_APPLICATION_CREDENTIALS", value: `${registrySecretDir}/key.json` }],
  };
}

/** The pod's volumes (workspace, credentials, base-image cache) and those the Kaniko container mounts. */
function podVolumes(config: BuildsConfig, registryMounts: V1VolumeMount[]) {
  const volumes: V1Volume[] = [{ name: "workspace", emptyDir: {} }];
  for (const volume of [
    registryCredentialsVolume(config),
    config.storage && storageCredentialsVolume(config.storage),
  ])
    if (volume) volumes.push(volume);
  const kanikoMounts: V1VolumeMount[] = [{ name: "workspace", mountPath: workspace }, ...registryMounts];
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
  const { build, config } = input;
  if (!config.storage) throw new Error("renderKanikoJob: no blob store configured");
  const registry = registryCredentials(config);
  const { volumes, kanikoMounts } = podVolumes(config, registry.mounts);
  const env = [...registry.env, ...secretBuildArgEnv(input)];
  const kaniko: V1Container = {
    name: "kaniko",
    image: config.kaniko.image,
    args: kanikoArgs(input),
    resources: buildResources(build, config),
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: kanikoMounts,
    ...(env.length ? { env } : {}),
  };
  return renderBuildJob(input, config.kaniko.fetcherImages, {
    initContainers: [],
    containers: [kaniko],
    volumes,
  });
}
