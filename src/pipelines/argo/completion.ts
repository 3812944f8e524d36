import type { RunCompletion, RunProgress } from "../backend.ts";
import { finishedRun, observedRun } from "../run-steps.ts";
import { type ArgoNode, runSteps } from "./steps.ts";

const argoSaid = { backend: "Argo", run: "workflow" };

interface ArgoArtifact {
  name: string;
  s3?: { bucket?: string; key?: string };
  gcs?: { bucket?: string; key?: string };
  http?: { url?: string };
  raw?: { data?: string };
}

export interface ArgoWorkflowStatus {
  phase?: string;
  startedAt?: string | null;
  finishedAt?: string | null;
  message?: string;
  nodes?: Record<string, ArgoNode & { outputs?: { artifacts?: ArgoArtifact[] } }>;
}

function location(artifact: ArgoArtifact, root: string | undefined): string | undefined {
  const keyed = (scheme: string, store?: { bucket?: string; key?: string }) =>
    store?.key === undefined
      ? undefined
      : store.bucket
        ? `${scheme}://${store.bucket}/${store.key}`
        : root
          ? `${root.replace(/\/+$/, "")}/${store.key}`
          : store.key;
  return keyed("s3", artifact.s3) ?? keyed("gs", artifact.gcs) ?? artifact.http?.url ?? artifact.raw?.data;
}

/**
 * A Run's completion from its Workflow's status as Argo's controller writes it: phase Succeeded →
 * Succeeded; Failed or Error → Failed; otherwise still running. Artifacts named `<step>:<artifact>`
 * are located in the step's node outputs; the steps are the nodes' (steps.ts), and a failed run's
 * failure names the step that failed.
 */
export function runCompletion(
  status: ArgoWorkflowStatus | undefined,
  wanted: { name: string; path: string }[],
  pipelineRootStorage?: string,
): RunCompletion | undefined {
  const phase = status?.phase;
  if (phase !== "Succeeded" && phase !== "Failed" && phase !== "Error") return undefined;
  const nodes = Object.values(status?.nodes ?? {});
  const artifacts = wanted.flatMap(({ name, path }) => {
    const [step, artifactName] = path.split(":");
    const artifact = nodes
      .filter((node) => node.displayName === step)
      .flatMap((node) => node.outputs?.artifacts ?? [])
      .find((a) => a.name === artifactName);
    const at = artifact && location(artifact, pipelineRootStorage);
    return at === undefined ? [] : [{ name, location: at }];
  });
  const steps = runSteps(status?.nodes);
  return finishedRun({
    succeeded: phase === "Succeeded",
    startedAt: status?.startedAt,
    finishedAt: status?.finishedAt,
    artifacts,
    steps,
    runMessage: status?.message,
    said: argoSaid,
  });
}

/** What one read of the Workflow says: its completion, or while it runs its steps so far. */
export function runObservation(
  status: ArgoWorkflowStatus | undefined,
  wanted: { name: string; path: string }[],
  pipelineRootStorage?: string,
): RunCompletion | RunProgress {
  return observedRun(runCompletion(status, wanted, pipelineRootStorage), () => runSteps(status?.nodes));
}
