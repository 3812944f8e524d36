import type { Permission, ResourceType } from "../../kube/types.ts";

/** A synced kind writes its own finalizers and status, and the backend objects it makes. */
export function syncedPermissions(type: ResourceType, backendTypes: ResourceType[]): Permission[] {
  return [
    { type, verbs: ["patch", "update"] },
    { type, verbs: ["patch", "update"], subresource: "status" },
    ...backendTypes.map((backendType) => ({
      type: backendType,
      verbs: ["get", "create", "patch", "delete"] as Permission["verbs"],
    })),
  ];
}
