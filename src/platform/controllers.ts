import type { ControllerSpec } from "../kube/types.ts";
import { componentController } from "./component-controller.ts";
import { platformController } from "./platform-controller.ts";

/** The platform's controllers, registered in src/operator/controllers.ts. */
export const platformControllers: ControllerSpec[] = [platformController, componentController];
