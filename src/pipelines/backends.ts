/**
 * The backends this operator runs, by provider type. Adding a backend is its module and one line
 * here; a Provider whose type has no line is `Ready=False, BackendUnavailable`. The first line also
 * cleans up after a resource whose Provider no longer exists: without the Provider there is no
 * endpoint or credential to reach a remote backend (kfp, vertex) with, so only argo's objects (in
 * the cluster) can be deleted then; a remote backend's objects are left there (docs/pipelines.md).
 */
import { argoBackend } from "./argo/backend.ts";
import type { BackendRegistry } from "./backend.ts";
import { kfpBackend } from "./kfp/backend.ts";
import { vertexBackend } from "./vertex/backend.ts";

export const backends: BackendRegistry = {
  argo: argoBackend,
  kfp: kfpBackend,
  vertex: vertexBackend,
};
