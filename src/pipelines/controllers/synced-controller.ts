/** The controller of a kind that is synced to its Provider's backend and re-synced when that Provider changes. */
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry } from "../backend.ts";
import type { SyncedKind, SyncedResource } from "../sync/kind.ts";
import { syncReconciler } from "../sync/reconciler.ts";
import { providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export function providerSyncedController<R extends SyncedResource, D>(
  name: string,
  kind: SyncedKind<R, D>,
  backends: BackendRegistry,
): ControllerSpec {
  const provider = providerWatch(kind.type);
  return {
    name,
    for: kind.type,
    watches: [provider.watch],
    indexes: [provider.index],
    reconcile: syncReconciler(kind, backends),
    permissions: syncedPermissions(kind.type, backends, kind.role),
  };
}
