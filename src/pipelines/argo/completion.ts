import type { RunCompletion } from "../backend.ts";

interface ArgoArtifact {
  name: string;
  s3?: { bucket?: string; key?: string };
  gcs?: { bucket?: string; key?: string };
  http?: { url?: string };
  raw?: { data?: string };
}

export interface ArgoWorkflowStatus {
  phase?: string;
  startedAt?: string;
  finishedAt?: string;
  nodes?: Record<string, { displayName?: string; outputs?: { artifacts?: ArgoArtifact[] } }>;
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
 * are located in the step's node outputs.
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
  return {
    state: phase === "Succeeded" ? "Succeeded" : "Failed",
    ...(status?.startedAt ? { startedAt: status.startedAt } : {}),
    ...(status?.finishedAt ? { finishedAt: status.finishedAt } : {}),
    artifacts,
  };
}
