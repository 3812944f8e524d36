import type { ControllerSpec } from "../kube/types.ts";
import { componentController } from "./component-controller.ts";
import { platformController } from "./platform-controller.ts";

/** The platform's controllers (fresh instances: no state shared between Managers). */
export function platformControllers(): ControllerSpec[] {
  return [platformController(), componentController()];
}
