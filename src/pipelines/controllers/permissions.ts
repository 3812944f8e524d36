import type { Permission, ResourceType } from "../../kube/types.ts";
import type { BackendPlugin, BackendRegistry } from "../backend.ts";

/** A synced kind writes its own finalizers and status, and what every registered backend makes for it. */
export function syncedPermissions(
  type: ResourceType,
  registry: BackendRegistry,
  role: keyof BackendPlugin["writes"],
): Permission[] {
  const backendTypes = Object.values(registry).flatMap((plugin) => plugin.writes[role]);
  return [
    { type, verbs: ["patch", "update"] },
    { type, verbs: ["patch", "update"], subresource: "status" },
    ...Object.values(registry).flatMap((plugin) => plugin.callPermissions ?? []),
    ...backendTypes.map((backendType) => ({
      type: backendType,
      verbs: ["get", "create", "patch", "delete"] as Permission["verbs"],
    })),
  ];
}
