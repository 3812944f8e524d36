import type { ControllerSpec } from "../kube/types.ts";
import { componentController } from "./component-controller.ts";
import { platformController } from "./platform-controller.ts";
import { PlatformResources } from "./platform-resources.ts";
import type { RenderOptions } from "./render.ts";

/** The platform's controllers (fresh instances: no state shared between Managers). */
export function platformControllers(render: RenderOptions = {}): ControllerSpec[] {
  return [platformController(new PlatformResources(), render), componentController()];
}
