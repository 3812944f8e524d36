/**
 * The run a memoized step reused, from Argo's cache (pure): a hit node's `memoizationStatus` names
 * the cache (`cacheName`, a ConfigMap of the Workflow's namespace) and the entry (`key`); the entry is
 * the JSON of Argo's cache Entry (workflow/controller/cache/cache.go: `nodeID`, `outputs`,
 * `creationTimestamp`, `lastHitTimestamp`), whose `nodeID` is the node that saved it: Workflow.NodeID
 * in workflow_types.go makes it `<workflow name>-<FNV-32a of the node name>` (argo-workflows v4), so
 * the Workflow that ran the step is the node id without its last `-<digits>`.
 */
import type { RunStepStatus } from "../backend.ts";
import type { ArgoNode } from "./steps.ts";

/** The cache entry each step that hit reads: its ConfigMap and key. */
export interface CacheHit {
  step: string;
  cacheName: string;
  key: string;
}

/** The hits among the steps' nodes (a step's node: displayName and its template, as steps.ts finds them). */
export function cacheHits(
  nodes: Record<string, ArgoNode> | undefined,
  steps: readonly RunStepStatus[],
): CacheHit[] {
  const hit = new Set(steps.filter((step) => step.cacheHit).map((step) => step.name));
  return Object.values(nodes ?? {}).flatMap((node) => {
    const status = node.memoizationStatus;
    if (!node.displayName || !hit.has(node.displayName) || !status?.hit || !status.key || !status.cacheName)
      return [];
    return [{ step: node.displayName, cacheName: status.cacheName, key: status.key }];
  });
}

/** The Workflow that saved a cache entry (its JSON as the ConfigMap holds it); undefined when unreadable. */
export function entryWorkflow(entry: string | undefined): string | undefined {
  if (!entry) return undefined;
  try {
    const nodeId = (JSON.parse(entry) as { nodeID?: unknown }).nodeID;
    if (typeof nodeId !== "string") return undefined;
    const workflow = /^(.+)-\d+$/.exec(nodeId)?.[1];
    return workflow ?? nodeId;
  } catch {
    return undefined;
  }
}

/** `steps` with `reusedRun` where a hit's entry names its Workflow. */
export function withReusedRuns(
  steps: RunStepStatus[],
  hits: readonly CacheHit[],
  entries: ReadonlyMap<string, Record<string, string> | undefined>,
): RunStepStatus[] {
  return steps.map((step) => {
    const hit = hits.find((h) => h.step === step.name);
    const workflow = hit ? entryWorkflow(entries.get(hit.cacheName)?.[hit.key]) : undefined;
    return workflow ? { ...step, reusedRun: workflow } : step;
  });
}
