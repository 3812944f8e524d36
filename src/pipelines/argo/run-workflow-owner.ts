/**
 * Whose a Workflow is that already holds a Run's Workflow name (its create refused as
 * AlreadyExists: a retry after a lost answer, or an operator restarted after its POST). Pure.
 */
import { controllerOf } from "../../kube/owners.ts";
import type { KubeObject } from "../../kube/types.ts";
import { ownerAnnotation } from "./names.ts";

const describe = (object: KubeObject) => `${object.metadata?.namespace}/${object.metadata?.name}`;

/**
 * Why the Run cannot take over `live`, the Workflow found under the name of `wanted` (the Workflow
 * the Run would have created), or undefined when `live` is the Run's own: its owner annotation names
 * the Run and its controller reference is the Run's (the Run's uid where the Run owns it, in the
 * Provider's namespace; none elsewhere). A Workflow of an earlier Run of the same name (another uid)
 * is not this Run's, and one being deleted cannot be run: neither is written to.
 */
export function runWorkflowOwnerProblem(live: KubeObject, wanted: KubeObject): string | undefined {
  const workflow = `the Workflow ${describe(live)}`;
  const named = live.metadata?.annotations?.[ownerAnnotation];
  const runNamed = wanted.metadata?.annotations?.[ownerAnnotation];
  if (named !== runNamed)
    return `${workflow} exists and is not this Run's (its ${ownerAnnotation} annotation is ${named === undefined ? "not set" : `"${named}"`}, not "${runNamed}"): it is left alone; delete or rename it for this Run to start`;
  const controller = controllerOf(live);
  const runUid = controllerOf(wanted)?.uid;
  if (controller?.uid !== runUid)
    return `${workflow} is not this Run's: its controller is ${controller ? `${controller.kind} ${controller.name} uid ${controller.uid}` : "not set"}, not this Run${runUid ? ` (uid ${runUid})` : ""} (an earlier Run of this name, or another's): it is left alone, and the Run retries until it is gone`;
  if (live.metadata?.deletionTimestamp)
    return `${workflow} of this Run is being deleted: the Run creates it anew once it is gone`;
  return undefined;
}
