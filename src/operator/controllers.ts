import { imageBuildController } from "../builds/controller.ts";
import type { ControllerSpec } from "../kube/types.ts";
import { platformControllers } from "../platform/controllers.ts";

/** Every controller `slipway operator` runs. Each capability adds its line here. */
export function allControllers(): ControllerSpec[] {
  return [...platformControllers, imageBuildController()];
}
