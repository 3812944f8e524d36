/**
 * `buildNamespace`: build Jobs run, and credentials Secrets are read, in one namespace of the
 * platform instead of the ImageBuild's own. An owner reference cannot cross namespaces, so a Job
 * there is tied to its build by labels (namespace, uid) and an annotation (name), and the build
 * carries a finalizer whose removal waits until its Job is deleted. Pure functions only.
 */
import type { ImageBuild } from "../apis/builds/imagebuild.ts";
import type { KubeObject, ObjectKey } from "../kube/types.ts";
import type { BuildsConfig } from "./config.ts";
import { buildJobName } from "./naming.ts";

export const ownerLabels = {
  namespace: "builds.slipway.dev/build-namespace",
  uid: "builds.slipway.dev/build-uid",
} as const;
/** An ImageBuild's name may be longer than a label value allows. */
export const ownerNameAnnotation = "builds.slipway.dev/build-name";
/** On an ImageBuild whose Job lives in another namespace: removed once that Job is deleted. */
export const jobCleanupFinalizer = "builds.slipway.dev/job-cleanup";

/** Where the build's Job runs and its credentials Secrets are read. */
export function jobNamespace(buildsNamespace: string, config: BuildsConfig): string {
  return config.buildNamespace ?? buildsNamespace;
}

/** True when the Job cannot be owned by the build (another namespace). */
export function isCrossNamespace(build: ImageBuild, jobNamespaceName: string): boolean {
  return build.metadata.namespace !== jobNamespaceName;
}

/** The Job building `reference` for `build`: its namespace's builds share it, no other namespace's. */
export function jobNameFor(build: ImageBuild, jobNamespaceName: string, reference: string): string {
  return buildJobName(
    reference,
    isCrossNamespace(build, jobNamespaceName) ? (build.metadata.namespace ?? "") : undefined,
  );
}

/** Labels and annotations that tie a Job in another namespace to its build. */
export function crossNamespaceTie(build: ImageBuild): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: {
      [ownerLabels.namespace]: build.metadata.namespace ?? "",
      [ownerLabels.uid]: build.metadata.uid ?? "",
    },
    annotations: { [ownerNameAnnotation]: build.metadata.name ?? "" },
  };
}

/** True when `build` started the Job: its owner reference, or (in another namespace) its uid label. */
export function ownsJob(job: KubeObject, build: ImageBuild): boolean {
  const uid = build.metadata.uid;
  if (!uid) return false;
  return (
    job.metadata?.labels?.[ownerLabels.uid] === uid ||
    (job.metadata?.ownerReferences ?? []).some((owner) => owner.uid === uid)
  );
}

/** The build a Job in another namespace belongs to (none for a Job owned by reference, or not a build's). */
export function buildOfCrossNamespaceJob(job: KubeObject): ObjectKey | undefined {
  const namespace = job.metadata?.labels?.[ownerLabels.namespace];
  const name = job.metadata?.annotations?.[ownerNameAnnotation];
  return namespace && name ? { namespace, name } : undefined;
}

/**
 * A Job takes secret build arguments only from Secrets of its own namespace, and in a shared build
 * namespace those are the platform's: the controller copies the build owner's values into this
 * Secret next to the Job (owned by it, so it goes with it), one key per argument name.
 */
export function buildArgsSecretName(jobName: string): string {
  return `${jobName}-args`;
}

/**
 * The per-build registry credential of a Job (registry.scopedCredentials): a dockerconfigjson next to
 * the Job, owned by it, mounted only into the steps that push.
 */
export function registryCredentialsSecretName(jobName: string): string {
  return `${jobName}-registry`;
}
