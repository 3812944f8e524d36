/**
 * Who a Component may act for, and which objects it may write (pure). A Component is reconciled only
 * when a Platform controls it under the name that Platform renders for it; its children are created
 * only where nothing of that name exists, and changed only when this Component controls them. So
 * whoever may create Components cannot make the operator adopt, overwrite or garbage-collect an
 * object that belongs to anything else (the operator's own ServiceAccount, another component's claim).
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { type ComponentName, componentNames } from "../apis/platform/schemas.ts";
import { controllerOf } from "../kube/owners.ts";
import type { KubeObject } from "../kube/types.ts";
import { serviceName } from "./catalog.ts";
import { controlledBy, platformReference } from "./platform-owner.ts";

/**
 * Why the Platform controller did not make this Component (undefined: it did). `platform` is the
 * cached Platform its controller reference names, if any.
 */
export function notFromPlatform(
  component: ComponentResource,
  platform: PlatformResource | undefined,
): string | undefined {
  const owner = platformReference(component);
  if (!owner) return "not controlled by a Platform: nothing is rendered for it";
  if (!controlledBy(component, platform)) {
    return `its controlling Platform ${owner.name} does not exist: nothing is rendered for it`;
  }
  const name = component.spec.component as ComponentName;
  if (!componentNames.includes(name) || component.metadata.name !== serviceName(owner.name, name)) {
    return `Platform ${owner.name} renders no Component of this name for spec.component ${component.spec.component}: nothing is rendered for it`;
  }
  return undefined;
}

/** What may be done to a child of `component` given the object of that name found (if any). */
export type ChildAccess = "create" | "update" | "foreign";

export function childAccess(component: ComponentResource, live: KubeObject | undefined): ChildAccess {
  if (!live) return "create";
  return controllerOf(live)?.uid === component.metadata.uid ? "update" : "foreign";
}

/** The message of a Component refused because `objects` (kind and name) exist and are not its own. */
export function foreignChildrenMessage(objects: KubeObject[]): string {
  const names = objects.map((o) => `${o.kind} ${o.metadata?.name}`).join(", ");
  return `${names} already exist${objects.length === 1 ? "s" : ""} and ${objects.length === 1 ? "is" : "are"} not owned by this Component: nothing is applied`;
}
