/**
 * The `slipway install` flags that run a platform on the real node (pure): every component placed
 * there (its toleration and node selector), its claims in the node's StorageClass and sized to fit
 * its 1Gi volumes. Used by `dev demo` and the real-platform e2e test.
 */
import { componentNames } from "../../apis/platform/schemas.ts";
import { realNodePlacement, realNodeStorageClass } from "./objects.ts";

export function realNodeInstallFlags(): string[] {
  const placement = realNodePlacement();
  const sets = componentNames.flatMap((name) => [
    "--set",
    `components.${name}.nodeSelector=${JSON.stringify(placement.nodeSelector)}`,
    "--set",
    `components.${name}.tolerations=${JSON.stringify(placement.tolerations)}`,
  ]);
  return [
    ...sets,
    "--storage-class",
    realNodeStorageClass,
    "--artifacts-size",
    "1Gi",
    "--registry-size",
    "1Gi",
    "--builder-cache-size",
    "1Gi",
    "--set",
    "storage.databaseSize=1Gi",
  ];
}
