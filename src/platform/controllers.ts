import type { ControllerSpec } from "../kube/types.ts";
import { type Release, releases } from "./catalog.ts";
import { componentController } from "./component-controller.ts";
import { platformController } from "./platform-controller.ts";
import { PlatformResources } from "./platform-resources.ts";
import type { RenderOptions } from "./render.ts";

/**
 * The platform's controllers (fresh instances: no state shared between Managers), knowing `catalog`'s
 * releases (this build's; tests give releases of their own, e.g. gated or failing ones).
 */
export function platformControllers(
  render: RenderOptions = {},
  catalog: readonly Release[] = releases,
): ControllerSpec[] {
  return [platformController(new PlatformResources(), render, catalog), componentController()];
}
