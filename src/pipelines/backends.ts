/**
 * The backends this operator runs, by provider type. Adding a backend is its module and one line
 * here; a Provider whose type has no line is `Ready=False, BackendUnavailable`. The first line also
 * cleans up after a resource whose Provider no longer exists: without the Provider there is no
 * endpoint or credential to reach a remote backend (kfp, vertex) with, so only argo's objects (in
 * the cluster) can be deleted then; a remote backend's objects are left there (docs/pipelines.md).
 */
import { type ArgoSettings, argoBackendFor } from "./argo/backend.ts";
import type { BackendRegistry } from "./backend.ts";
import { kfpBackendFor } from "./kfp/backend.ts";
import { type OutboundPolicy, outboundPolicy } from "./outbound-policy.ts";
import { vertexBackendFor } from "./vertex/backend.ts";

/**
 * The backends, the remote ones (kfp, vertex) calling out only as the operator's outbound policy lets
 * them; `argo`: the namespaces an Argo installed elsewhere serves (SLIPWAY_ARGO_NAMESPACES).
 */
export const backendsFor = (outbound: OutboundPolicy, argo: ArgoSettings = {}): BackendRegistry => ({
  argo: argoBackendFor(argo),
  kfp: kfpBackendFor(outbound),
  vertex: vertexBackendFor(outbound),
});

/** Under the default outbound policy. */
export const backends: BackendRegistry = backendsFor(outboundPolicy());
