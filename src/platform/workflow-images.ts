/**
 * The images a release's workflow engine starts besides its own: Argo's executor (named in the
 * workflow-controller's ConfigMap, `executor.image`) and the default image of a pipeline step.
 * Kept per release next to the catalog's `releases`, pinned exactly like them.
 */
import { findRelease } from "./catalog.ts";

export interface WorkflowImages {
  /** Argo's argoexec, the same version as the release's workflow-controller. */
  executor: string;
  /** A Python interpreter: what a pipeline step needs to run its code and write an output artifact. */
  step: string;
}

const pythonStep = "docker.io/library/python:3.11.2-slim";

const byVersion: Readonly<Record<string, WorkflowImages>> = {
  "0.0.9": { executor: "quay.io/argoproj/argoexec:v3.5.10", step: pythonStep },
  "0.1.0": { executor: "quay.io/argoproj/argoexec:v3.6.2", step: pythonStep },
  "0.2.0": { executor: "quay.io/argoproj/argoexec:v4.0.5", step: pythonStep },
};

/** The executor and step images of a release the catalog knows, or undefined for an unknown version. */
export function workflowImages(version: string): WorkflowImages | undefined {
  const release = findRelease(version);
  return release ? byVersion[release.version] : undefined;
}
