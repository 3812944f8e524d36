/**
 * The Kaniko Job that builds one image reference: an init container fills a shared workspace from
 * the blob store, Kaniko builds it. Pure: (build, config) → Job. The Job around the Kaniko container
 * is the shared one of build-job.ts.
 *
 * Kaniko runs the Dockerfile's RUN steps in its own container, so that container never holds a push
 * credential: with one, Kaniko builds with `--no-push --tar-path` into an emptyDir and the buildah
 * steps of buildah-job.ts (`archivePushSteps`: `load`, then `push`, no tenant code) push the archive.
 * `push` holds a docker credential itself; a Google service-account key (`registry.type: google`) is
 * mounted into the step `registry-login` alone (Slipway's image: registry-login.ts), which exchanges it
 * for an access token and leaves `push` a docker config with that token (user `oauth2accesstoken`) in
 * an in-memory emptyDir. Without a credential (a registry that takes anonymous pushes) Kaniko pushes itself.
 */
import type { V1Container, V1Job, V1SecurityContext, V1Volume, V1VolumeMount } from "@kubernetes/client-node";
import type { ImageBuild } from "../apis/builds/imagebuild.ts";
import {
  type BuildJobInput,
  buildArgValues,
  buildResources,
  dockerfilePath,
  fetcherCommand,
  fetcherSecurityContext,
  pushCredentialsSecret,
  registrySecretDir,
  renderBuildJob,
  secretBuildArgEnv,
  workspace,
} from "./build-job.ts";
import { archivePushSteps } from "./buildah-job.ts";
import type { BuildsConfig } from "./config.ts";
import { formatImageReference, registryPrefix } from "./naming.ts";
import { namespacePrefix } from "./tenancy.ts";

const cacheDir = "/cache";
/** Where Kaniko leaves the image for the push steps when it does not push: the `image` emptyDir. */
const imageDir = "/image";
const imageArchive = `${imageDir}/image.tar`;

/**
 * As restrictive as Kaniko allows. Kaniko's executor runs as root in its own container and executes
 * RUN steps in that container's filesystem (its README, "How does kaniko work?": the base image's
 * filesystem is extracted in the executor and the Dockerfile's commands executed there; running as
 * another user is the open GoogleContainerTools/kaniko issue 105), so
 * no runAsNonRoot; it needs no privileged mode and no privilege escalation. Unpacking base images and
 * RUN steps need the file-owner capabilities, USER steps SETUID/SETGID (kaniko issue 778: with every
 * capability dropped even simple builds fail, naming CHOWN, DAC_OVERRIDE, FOWNER, SETUID, SETGID);
 * the rest of the runtime's default set (NET_RAW, MKNOD, SYS_CHROOT, SETPCAP, NET_BIND_SERVICE,
 * AUDIT_WRITE) is dropped, and the runtime's default seccomp profile applies.
 */
export const kanikoSecurityContext: V1SecurityContext = {
  runAsUser: 0,
  allowPrivilegeEscalation: false,
  capabilities: {
    drop: ["ALL"],
    add: ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "SETFCAP", "KILL"],
  },
  seccompProfile: { type: "RuntimeDefault" },
};

export type KanikoJobInput = BuildJobInput;

/** Does a separate step push (a credential, which Kaniko's RUN steps could read), not Kaniko? */
export function pushesSeparately(input: KanikoJobInput): boolean {
  return pushCredentialsSecret(input) !== undefined;
}

/** The in-memory emptyDir where `registry-login` leaves `push` the docker config of a Google registry. */
const loginVolume = "registry-login";
const loginDir = "/login";

/**
 * The step that turns a Google key into the docker config `push` uses (registry-login.ts), in
 * Slipway's image as the artifact fetcher runs: non-root, no capabilities. The key is mounted here only.
 */
function registryLoginStep(input: KanikoJobInput): V1Container {
  return {
    name: "registry-login",
    image: input.config.artifacts.fetcherImage,
    command: [fetcherCommand[0] ?? "", "dist/builds/registry-login.js"],
    workingDir: "/app",
    args: [`--registry=${input.image.registry}`, `${registrySecretDir}/key.json`, `${loginDir}/config.json`],
    env: [{ name: "HOME", value: "/tmp" }],
    terminationMessagePolicy: "FallbackToLogsOnError",
    securityContext: fetcherSecurityContext,
    volumeMounts: [
      { name: "registry-credentials", mountPath: registrySecretDir, readOnly: true },
      { name: loginVolume, mountPath: loginDir },
    ],
  };
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
    `--dockerfile=${dockerfilePath(build)}`,
    `--destination=${formatImageReference(image)}`,
    // A secret argument is named only: Kaniko reads its value from the environment, set from the Secret.
    ...buildArgValues(build).map((value) => `--build-arg=${value}`),
  ];
  const separately = pushesSeparately(input);
  if (separately) args.push("--no-push", `--tar-path=${imageArchive}`);
  if (config.kaniko.cache.enabled) {
    // the layer cache is pushed from the build, where no push credential may be
    if (!separately)
      args.push(
        "--cache=true",
        `--cache-repo=${config.kaniko.cache.repository ?? defaultCacheRepository(build, config)}`,
      );
    if (config.kaniko.cache.volumeClaim) args.push(`--cache-dir=${cacheDir}`);
  }
  if (config.registry.insecure) args.push("--insecure", "--insecure-pull");
  return [...args, ...config.kaniko.extraArgs];
}

/** The pod's own volumes (the base-image cache; the shared ones are build-job.ts's) and those the Kaniko container mounts (never a credential). */
function podVolumes(input: KanikoJobInput) {
  const { config } = input;
  const volumes: V1Volume[] = [];
  const kanikoMounts: V1VolumeMount[] = [{ name: "workspace", mountPath: workspace }];
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
  const { volumes, kanikoMounts } = podVolumes(input);
  const env = secretBuildArgEnv(input);
  const kaniko: V1Container = {
    name: "kaniko",
    image: config.kaniko.image,
    args: kanikoArgs(input),
    resources: buildResources(build, config),
    securityContext: kanikoSecurityContext,
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: kanikoMounts,
    ...(env.length ? { env } : {}),
  };
  if (!pushesSeparately(input))
    return renderBuildJob(input, { initContainers: [], containers: [kaniko], volumes });
  const archiveMount = { name: "image", mountPath: imageDir };
  const google = config.registry.type === "google";
  const { load, push, storage } = archivePushSteps(
    input,
    imageArchive,
    archiveMount,
    google ? loginVolume : undefined,
  );
  const login: V1Volume[] = google ? [{ name: loginVolume, emptyDir: { medium: "Memory" } }] : [];
  return renderBuildJob(input, {
    initContainers: [
      { ...kaniko, volumeMounts: [...kanikoMounts, archiveMount] },
      load,
      ...(google ? [registryLoginStep(input)] : []),
    ],
    containers: [push],
    volumes: [...volumes, { name: archiveMount.name, emptyDir: {} }, storage, ...login],
  });
}
