/**
 * The buildah Job that builds one image reference, on the Job every in-cluster builder shares
 * (build-job.ts): `fetch-artifact` fills the workspace, the init container `build` runs `buildah bud`
 * into storage on an emptyDir, the container `push` pushes it with the registry credentials and writes
 * the pushed digest as its termination message. Each step is one command: the image needs no shell.
 * Pure: (build, config) → Job.
 *
 * Unprivileged, in buildah's documented rootless mode for a pod (buildah's
 * docs/tutorials/05-openshift-rootless-build.md): a non-root user with subordinate id ranges (the
 * image's /etc/subuid and /etc/subgid), `--isolation chroot` (no OCI runtime inside the pod) and
 * `--storage-driver vfs` (no overlay or fuse mounts); the only capabilities are SETUID and SETGID, which
 * the image's setuid newuidmap/newgidmap need to map those ranges into buildah's user namespace
 * (hence no `allowPrivilegeEscalation: false`). No `privileged`, no SYS_ADMIN: buildah's mounts happen
 * inside that user namespace.
 */
import type {
  V1Container,
  V1EnvVar,
  V1Job,
  V1SecurityContext,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import {
  type BuildJobInput,
  buildArgValues,
  buildResources,
  dockerfilePath,
  pushCredentialsSecret,
  registryCredentialsVolume,
  registrySecretDir,
  renderBuildJob,
  secretBuildArgEnv,
  storageCredentialsVolume,
  workspace,
} from "./build-job.ts";
import { formatImageReference } from "./naming.ts";

const storageDir = "/var/lib/buildah";
/** Where the kubelet reads a container's termination message (the default terminationMessagePath). */
export const terminationLog = "/dev/termination-log";
/** The image's user `build`, whose subordinate ids the image lists. */
export const buildahUser = 1000;

/** Rootless buildah (see the module comment): its user, SETUID and SETGID for newuidmap/newgidmap, nothing else. */
export const rootlessSecurityContext: V1SecurityContext = {
  runAsUser: buildahUser,
  runAsGroup: buildahUser,
  runAsNonRoot: true,
  capabilities: { drop: ["ALL"], add: ["SETUID", "SETGID"] },
};

/** buildah's global options: vfs storage on the pod's `buildah-storage` volume, shared by build and push. */
function storageOptions(): string[] {
  return [`--root=${storageDir}/storage`, `--runroot=${storageDir}/run`, "--storage-driver=vfs"];
}

/** Options of both steps that reach the registry: plain HTTP, the docker config of the push Secret. */
function registryOptions(input: BuildJobInput): string[] {
  return [
    ...(input.config.registry.insecure ? ["--tls-verify=false"] : []),
    ...(pushCredentialsSecret(input) ? [`--authfile=${registrySecretDir}/config.json`] : []),
  ];
}

function budArgs(input: BuildJobInput): string[] {
  const { build, config } = input;
  return [
    ...storageOptions(),
    "bud",
    "--isolation=chroot",
    `--file=${dockerfilePath(build)}`,
    `--tag=${formatImageReference(input.image)}`,
    // A secret argument is named only: buildah reads its value from the environment, set from the Secret.
    ...buildArgValues(build).map((value) => `--build-arg=${value}`),
    ...registryOptions(input),
    ...config.buildah.extraArgs,
    workspace,
  ];
}

function pushArgs(input: BuildJobInput): string[] {
  const reference = formatImageReference(input.image);
  return [
    ...storageOptions(),
    "push",
    `--digestfile=${terminationLog}`,
    ...registryOptions(input),
    reference,
    `docker://${reference}`,
  ];
}

function volumes(input: BuildJobInput): { volumes: V1Volume[]; registryMounts: V1VolumeMount[] } {
  const { config } = input;
  const registry = registryCredentialsVolume(input);
  const list: V1Volume[] = [
    { name: "workspace", emptyDir: {} },
    { name: "buildah-storage", emptyDir: {} },
  ];
  for (const volume of [registry, config.storage && storageCredentialsVolume(config.storage)])
    if (volume) list.push(volume);
  const registryMounts = registry
    ? [{ name: registry.name, mountPath: registrySecretDir, readOnly: true }]
    : [];
  return { volumes: list, registryMounts };
}

function buildahContainer(
  name: string,
  input: BuildJobInput,
  args: string[],
  mounts: V1VolumeMount[],
  env: V1EnvVar[],
): V1Container {
  return {
    name,
    image: input.config.buildah.image,
    command: ["buildah"],
    args,
    env: [{ name: "BUILDAH_ISOLATION", value: "chroot" }, ...env],
    resources: buildResources(input.build, input.config),
    securityContext: rootlessSecurityContext,
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [{ name: "buildah-storage", mountPath: storageDir }, ...mounts],
  };
}

export function renderBuildahJob(input: BuildJobInput): V1Job {
  const { config } = input;
  if (!config.storage) throw new Error("renderBuildahJob: no blob store configured");
  const { volumes: podVolumes, registryMounts } = volumes(input);
  const workspaceMount = { name: "workspace", mountPath: workspace, readOnly: true };
  const build = buildahContainer(
    "build",
    input,
    budArgs(input),
    [workspaceMount, ...registryMounts],
    secretBuildArgEnv(input),
  );
  const push = buildahContainer("push", input, pushArgs(input), registryMounts, []);
  return renderBuildJob(input, {
    initContainers: [build],
    containers: [push],
    volumes: podVolumes,
  });
}
