/** The controller runtime: what operators and controllers import. */
export { InformerCache } from "./cache.ts";
export { KubeClient } from "./client.ts";
export {
  type Condition,
  type ConditionInput,
  getCondition,
  isConditionTrue,
  removeCondition,
  rfc3339,
  setCondition,
} from "./conditions.ts";
export { Controller } from "./controller.ts";
export { KubeEventRecorder } from "./events.ts";
export { shouldReconcileUpdate } from "./filters.ts";
export { controllerIndex, Informer } from "./informer.ts";
export { apiVersionOf, keyOf, keyString, objectKeyString, parseKey, resourcePath, typeId } from "./keys.ts";
export { LeaderElector } from "./leader.ts";
export { Manager, type ManagerOptions, type ManagerOutcome } from "./manager.ts";
export { RuntimeMetrics } from "./metrics.ts";
export { controllerOf, ownerReference } from "./owners.ts";
export { WorkQueue } from "./queue.ts";
export { ItemBackoff, RateLimiter, TokenBucket } from "./rate-limit.ts";
export { ApiError, isConflict, isGone, isNotFound, RestClient } from "./rest.ts";
export * from "./types.ts";
