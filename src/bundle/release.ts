/** The bundle of this release: every registered kind and controller, the image of this version. */

import { allKinds } from "../apis/index.ts";
import { allControllers } from "../operator/controllers.ts";
import { argoMinimalCrds } from "../pipelines/argo/crds.ts";
import { findRelease, ownVersion } from "../platform/catalog.ts";
import { type BundleObject, type BundleOptions, bundleFor, defaultResources, labels } from "./bundle.ts";
import { bundleGrants } from "./grants.ts";
import { splitImage } from "./helm.ts";
import { runFinalizerPolicyKinds } from "./run-finalizer.ts";

export const imageRepository = "ghcr.io/slipway-dev/slipway";

/** The workflow engine's version in the catalog's entry for `version` (its image's tag). */
export function workflowEngineVersion(version: string): string {
  const image = findRelease(version)?.images["workflow-engine"];
  if (!image) throw new Error(`the catalog has no workflow-engine image for release ${version}`);
  return splitImage(image).tag;
}

export function releaseOptions(overrides: Partial<BundleOptions> = {}): BundleOptions {
  return {
    kinds: allKinds,
    controllers: allControllers(),
    image: `${imageRepository}:${ownVersion}`,
    imagePullPolicy: "IfNotPresent",
    replicas: 1,
    logLevel: "info",
    resources: defaultResources,
    version: ownVersion,
    grants: bundleGrants,
    engineCrds: argoMinimalCrds(workflowEngineVersion(ownVersion), labels(ownVersion, "workflow-engine")),
    runFinalizerPolicy: true,
    ...overrides,
  };
}

/** What `slipway install` applies into `namespace`. */
export function releaseBundle(namespace: string, overrides: Partial<BundleOptions> = {}): BundleObject[] {
  return bundleFor(namespace, releaseOptions(overrides));
}

/** What `slipway install` applies of the Run finalizer policy, for an operator in `namespace` serving `serves`. */
export function releaseRunFinalizerPolicy(
  namespace: string,
  serves: BundleOptions["serves"],
): BundleObject[] {
  return releaseBundle(namespace, serves ? { serves } : {}).filter((object) =>
    runFinalizerPolicyKinds.includes(object.kind ?? ""),
  );
}
