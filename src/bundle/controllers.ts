/**
 * The controllers whose RBAC the bundle carries: `allControllers()` from src/operator/controllers.ts
 * (the runtime's registry). Loaded dynamically so the bundle works before that registry exists.
 */
import type { ControllerSpec } from "../kube/types.ts";

type Registry = { allControllers?: () => ControllerSpec[] };

const registry: Registry = await import("../operator/controllers.ts" as string).catch(
  (error: NodeJS.ErrnoException) => {
    if (error.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("controllers.ts")) return {};
    throw error;
  },
);

export function registeredControllers(): ControllerSpec[] {
  return registry.allControllers?.() ?? [];
}
