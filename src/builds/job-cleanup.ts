/**
 * A deleted ImageBuild whose Job runs in another namespace (no owner reference can reach it): delete
 * that Job, the copy of the build's secret arguments and its registry credential, then remove the cleanup finalizer so the
 * build goes. The pushed image stays.
 */
import type { V1Job } from "@kubernetes/client-node";
import type { ImageBuild, ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { executePlan, type PlanCommand } from "../kube/plan.ts";
import type { StatusWriter } from "../kube/status-writer.ts";
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

/** The deletions of the build's Jobs and what goes with each, then the finalizer's removal (pure). */
export function cleanupPlan(jobs: readonly V1Job[]): PlanCommand<ImageBuildStatus>[] {
  const deletions = jobs.flatMap((job): PlanCommand<ImageBuildStatus>[] => {
    const namespace = job.metadata?.namespace ?? "";
    const name = job.metadata?.name ?? "";
    return [
      { type: "Delete", resource: types.job, key: { namespace, name }, propagationPolicy: "Background" },
      // owned by the Job, unless the build stopped between creating them and the Job
      { type: "Delete", resource: types.secret, key: { namespace, name: buildArgsSecretName(name) } },
      {
        type: "Delete",
        resource: types.secret,
        key: { namespace, name: registryCredentialsSecretName(name) },
      },
    ];
  });
  return [...deletions, { type: "RemoveFinalizer", finalizer: jobCleanupFinalizer }];
}

export async function deleteTiedJobs(
  build: ImageBuild,
  context: ReconcileContext,
  writer: StatusWriter<ImageBuildStatus>,
): Promise<undefined> {
  if (!build.metadata.finalizers?.includes(jobCleanupFinalizer)) return undefined;
  const commands = cleanupPlan(await tiedJobs(build, context));
  await executePlan(commands, { resource: types.imageBuild, object: build, writer, context });
  return undefined;
}
