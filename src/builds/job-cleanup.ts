/**
 * A deleted ImageBuild whose Job runs in another namespace (no owner reference can reach it): delete
 * that Job, the copy of the build's secret arguments and its registry credential, then remove the cleanup finalizer so the
 * build goes. The pushed image stays.
 */
import type { V1Job } from "@kubernetes/client-node";
import type { ImageBuild } from "../apis/builds/imagebuild.ts";
import { keyOf } from "../kube/keys.ts";
import type { ReconcileContext } from "../kube/types.ts";
import {
  buildArgsSecretName,
  jobCleanupFinalizer,
  ownerLabels,
  registryCredentialsSecretName,
} from "./build-namespace.ts";
import { types } from "./resource-types.ts";

/** The build's Jobs: from the cache, else (an operator not watching the build namespace) the one its status records. */
async function tiedJobs(build: ImageBuild, context: ReconcileContext): Promise<V1Job[]> {
  const uid = build.metadata.uid ?? "";
  const cached = context.cache.list<V1Job>(types.job, { labels: { [ownerLabels.uid]: uid } });
  const recorded = build.status?.job;
  if (cached.length > 0 || !recorded || recorded.namespace === build.metadata.namespace) return cached;
  const job = await context.client.get<V1Job>(types.job, recorded);
  return job?.metadata?.labels?.[ownerLabels.uid] === uid ? [job] : [];
}

export async function deleteTiedJobs(build: ImageBuild, context: ReconcileContext): Promise<undefined> {
  if (!build.metadata.finalizers?.includes(jobCleanupFinalizer)) return undefined;
  for (const job of await tiedJobs(build, context)) {
    const namespace = job.metadata?.namespace ?? "";
    const name = job.metadata?.name ?? "";
    await context.client.delete(types.job, { namespace, name }, { propagationPolicy: "Background" });
    // owned by the Job, unless the build stopped between creating them and the Job
    await context.client.delete(types.secret, { namespace, name: buildArgsSecretName(name) });
    await context.client.delete(types.secret, { namespace, name: registryCredentialsSecretName(name) });
  }
  await context.client.removeFinalizer(types.imageBuild, keyOf(build), jobCleanupFinalizer);
  return undefined;
}
