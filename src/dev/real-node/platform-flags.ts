/**
 * The `slipway install` settings that run a platform on the real node (pure): every component placed
 * there (its toleration and node selector), its claims in the node's StorageClass and sized to fit
 * its 1Gi volumes. `install --dev --real-node` applies them (so `dev demo` does); the real-platform
 * e2e test passes them as flags.
 */
import { componentNames } from "../../apis/platform/schemas.ts";
import { realNodePlacement, realNodeStorageClass } from "./objects.ts";

/** The settings as `install`'s parsed options (`set`: its `--set path=value` expressions). */
export interface RealNodeInstallSettings {
  storageClass: string;
  artifactsSize: string;
  registrySize: string;
  builderCacheSize: string;
  set: string[];
}

export function realNodeInstallSettings(): RealNodeInstallSettings {
  const placement = realNodePlacement();
  const placed = componentNames.flatMap((name) => [
    `components.${name}.nodeSelector=${JSON.stringify(placement.nodeSelector)}`,
    `components.${name}.tolerations=${JSON.stringify(placement.tolerations)}`,
  ]);
  return {
    storageClass: realNodeStorageClass,
    artifactsSize: "1Gi",
    registrySize: "1Gi",
    builderCacheSize: "1Gi",
    set: [...placed, "storage.databaseSize=1Gi"],
  };
}

/** The same settings as `slipway install` flags. */
export function realNodeInstallFlags(): string[] {
  const settings = realNodeInstallSettings();
  return [
    "--storage-class",
    settings.storageClass,
    "--artifacts-size",
    settings.artifactsSize,
    "--registry-size",
    settings.registrySize,
    "--builder-cache-size",
    settings.builderCacheSize,
    ...settings.set.flatMap((expression) => ["--set", expression]),
  ];
}
