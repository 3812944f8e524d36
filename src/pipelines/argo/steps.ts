/**
 * A Run's steps from Argo's own record of its Workflow (pure): `status.nodes`, as Argo's controller
 * writes them (NodeStatus, pkg/apis/workflow/v1alpha1/workflow_types.go, argo-workflows v4). A step
 * is the DAG task of the same name, whose node has `displayName` = the task's name and `templateName`
 * = the step's template (`step-<name>`, workflow.ts): a Pod node, or with a retryStrategy a Retry
 * node whose `children` are its attempts (Pod nodes `<name>(0)`, `<name>(1)` …, which therefore
 * match no step); a task not run because a dependency failed is a node of phase Omitted. A Pod
 * node's `outputs.exitCode` is its main container's exit code (a string). A memoized step's node
 * (argo/memoize.ts) has `memoizationStatus` (MemoizationStatus): `hit` says whether it reused a cached
 * execution (then it Succeeded without a pod).
 */
import { clip } from "../../lib/clip.ts";
import type { RunStepStatus } from "../backend.ts";
import { maxStepMessage, orderedSteps } from "../run-steps.ts";
import { stepTemplate } from "./workflow.ts";

export interface ArgoNode {
  id?: string;
  name?: string;
  displayName?: string;
  type?: string;
  templateName?: string;
  phase?: string;
  /** Argo writes `null` for a time not reached yet (a zero metav1.Time). */
  startedAt?: string | null;
  finishedAt?: string | null;
  message?: string;
  children?: string[];
  outputs?: { exitCode?: string; artifacts?: unknown[] };
  memoizationStatus?: { hit?: boolean; key?: string; cacheName?: string };
}

/** The Run's phase of a step from Argo's NodePhase. */
const phases: Record<string, RunStepStatus["phase"]> = {
  Pending: "Pending",
  Running: "Running",
  Succeeded: "Succeeded",
  Failed: "Failed",
  Error: "Failed",
  Skipped: "Skipped",
  Omitted: "Skipped",
};

function exitCodeOf(node: ArgoNode | undefined): number | undefined {
  const text = node?.outputs?.exitCode;
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

function stepOf(node: ArgoNode & { displayName: string }, nodes: Record<string, ArgoNode>): RunStepStatus {
  const attempts = node.type === "Retry" ? (node.children ?? []).flatMap((id) => nodes[id] ?? []) : [];
  const last = attempts.at(-1);
  const exitCode = exitCodeOf(node) ?? exitCodeOf(last);
  const message = node.message || last?.message;
  return {
    name: node.displayName,
    phase: phases[node.phase ?? ""] ?? "Pending",
    ...(node.startedAt ? { startedAt: node.startedAt } : {}),
    ...(node.finishedAt ? { finishedAt: node.finishedAt } : {}),
    ...(attempts.length > 1 ? { retries: attempts.length - 1 } : {}),
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(message ? { message: clip(message, maxStepMessage) } : {}),
    ...(node.memoizationStatus ? { cacheHit: node.memoizationStatus.hit === true } : {}),
  };
}

/** Each step Argo has a node for, in the order they started (not started yet: last), then by name. */
export function runSteps(nodes: Record<string, ArgoNode> | undefined): RunStepStatus[] {
  const all = nodes ?? {};
  return orderedSteps(
    Object.values(all)
      .filter(
        (node): node is ArgoNode & { displayName: string } =>
          node.displayName !== undefined && node.templateName === stepTemplate(node.displayName),
      )
      .map((node) => stepOf(node, all)),
  );
}
