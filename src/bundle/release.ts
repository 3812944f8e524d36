/** The bundle of this release: every registered kind and controller, the image of this version. */

import packageJson from "../../package.json" with { type: "json" };
import { allKinds } from "../apis/index.ts";
import { allControllers } from "../operator/controllers.ts";
import { type BundleObject, type BundleOptions, bundleFor, defaultResources } from "./bundle.ts";
import { bundleGrants } from "./grants.ts";

export const imageRepository = "ghcr.io/slipway-dev/slipway";
export const releaseVersion: string = packageJson.version;

export function releaseOptions(overrides: Partial<BundleOptions> = {}): BundleOptions {
  return {
    kinds: allKinds,
    controllers: allControllers(),
    image: `${imageRepository}:${releaseVersion}`,
    imagePullPolicy: "IfNotPresent",
    replicas: 1,
    logLevel: "info",
    resources: defaultResources,
    version: releaseVersion,
    grants: bundleGrants,
    ...overrides,
  };
}

/** What `slipway install` applies into `namespace`. */
export function releaseBundle(namespace: string, overrides: Partial<BundleOptions> = {}): BundleObject[] {
  return bundleFor(namespace, releaseOptions(overrides));
}
