/**
 * The buildah Job that builds one image reference, on the Job every in-cluster builder shares
 * (build-job.ts): `fetch-artifact` fills the workspace, the init container `build` runs `buildah bud`
 * into storage on an emptyDir, the container `push` pushes it with the registry credentials and writes
 * the pushed digest as its termination message. Each step is one command: the image needs no shell.
 * Pure: (build, config) → Job.
 *
 * Only steps that run no tenant code hold the push credential: `build` runs the Dockerfile's RUN
 * steps, so it has no credential at all (a RUN step could read it and push over any image). The
 * build's `baseImage` is pulled before it, with the credential, by the init container `pull` (the
 * platform's registry answers no anonymous pull); `build` then uses that copy (`--pull=missing`) and
 * pulls any other `FROM` image anonymously.
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
  workspace,
} from "./build-job.ts";
import { formatImageReference } from "./naming.ts";

const storageDir = "/var/lib/buildah";
/** buildah's storage, shared by the steps of one pod. */
const storageVolume: V1Volume = { name: "buildah-storage", emptyDir: {} };
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

/** Plain HTTP: every step that reaches the registry. */
function tlsOptions(input: BuildJobInput): string[] {
  return input.config.registry.insecure ? ["--tls-verify=false"] : [];
}

/** The docker config of the push Secret: only for the steps that run no tenant code (`pull`, `push`). */
function credentialOptions(input: BuildJobInput): string[] {
  return [
    ...tlsOptions(input),
    ...(pushCredentialsSecret(input) ? [`--authfile=${registrySecretDir}/config.json`] : []),
  ];
}

/** The image the `pull` step fetches with the credential: the build's base, when there is a credential to pull it with. */
function prePulledBase(input: BuildJobInput): string | undefined {
  return pushCredentialsSecret(input) ? input.build.spec.baseImage : undefined;
}

function pullArgs(input: BuildJobInput, base: string): string[] {
  return [...storageOptions(), "pull", "--quiet", ...credentialOptions(input), base];
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
    // the base `pull` fetched: not looked up again (a newer-check would need the credential)
    ...(prePulledBase(input) ? ["--pull=missing"] : []),
    ...tlsOptions(input),
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
    ...credentialOptions(input),
    reference,
    `docker://${reference}`,
  ];
}

/** The push credentials' mount, if there is a credential: only for the steps that run no tenant code. */
function credentialMounts(input: BuildJobInput): V1VolumeMount[] {
  const registry = registryCredentialsVolume(input);
  return registry ? [{ name: registry.name, mountPath: registrySecretDir, readOnly: true }] : [];
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
    volumeMounts: [{ name: storageVolume.name, mountPath: storageDir }, ...mounts],
  };
}

/**
 * The steps that push an image another step left as a docker archive (Kaniko's `--tar-path`): init
 * container `load` reads it into buildah's storage (`buildah pull docker-archive:…`, which names the
 * image by the archive's tag, the reference), container `push` pushes it as the buildah Job does, with
 * the credential. Neither runs tenant code; `archiveMount` is the archive's volume, read-only.
 */
export function archivePushSteps(
  input: BuildJobInput,
  archive: string,
  archiveMount: V1VolumeMount,
  /** What `push` finds at registrySecretDir instead of the push Secret (a Google registry's login step's docker config). */
  credentialVolume?: string,
): { load: V1Container; push: V1Container; storage: V1Volume } {
  const loadArgs = [...storageOptions(), "pull", "--quiet", `docker-archive:${archive}`];
  const pushMounts = credentialVolume
    ? [{ name: credentialVolume, mountPath: registrySecretDir, readOnly: true }]
    : credentialMounts(input);
  return {
    load: buildahContainer("load", input, loadArgs, [{ ...archiveMount, readOnly: true }], []),
    push: buildahContainer("push", input, pushArgs(input), pushMounts, []),
    storage: storageVolume,
  };
}

export function renderBuildahJob(input: BuildJobInput): V1Job {
  const { config } = input;
  if (!config.storage) throw new Error("renderBuildahJob: no blob store configured");
  const registryMounts = credentialMounts(input);
  const workspaceMount = { name: "workspace", mountPath: workspace, readOnly: true };
  // no registry credential: this step runs the Dockerfile's RUN steps
  const build = buildahContainer("build", input, budArgs(input), [workspaceMount], secretBuildArgEnv(input));
  const base = prePulledBase(input);
  const pull = base ? [buildahContainer("pull", input, pullArgs(input, base), registryMounts, [])] : [];
  const push = buildahContainer("push", input, pushArgs(input), registryMounts, []);
  return renderBuildJob(input, {
    initContainers: [...pull, build],
    containers: [push],
    volumes: [storageVolume],
  });
}
