/**
 * How ImageBuilds in a platform's namespace reach its registry and object store (pure): the builds
 * area's per-namespace override ConfigMap (src/builds/override.ts), written by the platform with its
 * registry (the platform user's credentials for the operator, per-build ones for build pods) and
 * object store, merged by the operator over its own builds configuration; and what a Platform vouches
 * for in an override it controls (its own registry, its token issuer and object store hosts), which the builds operator allows without a tenancy grant. Nothing in the
 * builds area knows about platforms: the operator hands it platformBuildsVoucher.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { PlatformResource } from "../apis/platform/platform.ts";
import type { OverrideVoucher } from "../builds/controller.ts";
import { overrideConfigMapName, overrideKey, type Vouching } from "../builds/override.ts";
import { endpointHost } from "../builds/tenancy.ts";
import { ownerReference } from "../kube/owners.ts";
import { stringifyYaml as stringify } from "../lib/yaml.ts";
import { labels } from "./component-objects.ts";
import { credentialKeys, credentialSecrets, registryHost } from "./credentials.ts";
import { serviceName } from "./names.ts";
import { controlledBy, platformReference, referencedPlatform } from "./platform-owner.ts";
import { registryTokenSettings } from "./registry-token.ts";
import { types } from "./resource-types.ts";

/** The builds configuration fields the platform provides (registry and storage: all a namespace may set). */
export function platformBuildsConfig(platform: string, namespace: string) {
  const secrets = credentialSecrets(platform);
  return {
    registry: {
      type: "docker",
      url: registryHost(platform, namespace),
      // the operator's (image checks); build pods get a credential of their own
      credentialsSecret: secrets.registry,
      insecure: true,
      scopedCredentials: { secret: secrets.registry, key: credentialKeys.registry.buildCredentialsKey },
    },
    storage: {
      type: "s3",
      s3: {
        endpoint: `http://${serviceName(platform, "object-store")}.${namespace}.svc:9000`,
        forcePathStyle: true,
        credentialsSecret: secrets.objectStore,
      },
    },
  };
}

export function platformBuildsOverride(platform: PlatformResource): V1ConfigMap {
  const name = platform.metadata.name ?? "";
  const namespace = platform.metadata.namespace ?? "";
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: overrideConfigMapName,
      namespace,
      labels: { "app.kubernetes.io/part-of": "slipway", [labels.platform]: name },
      ownerReferences: [ownerReference(platform)],
    },
    data: { [overrideKey]: stringify(platformBuildsConfig(name, namespace)) },
  };
}

/**
 * What `platform` (the Platform of the ConfigMap's namespace its controller reference names, if any)
 * makes of `configMap`: when it controls it (the reference's uid is that Platform's), its own
 * registry and object store hosts; when the reference names a Platform but not that one, why not;
 * with no Platform reference, nothing. Whoever may create ConfigMaps there can copy the reference,
 * but gains only builds sent to this Platform's own Services.
 */
export function platformVouchedHosts(
  configMap: V1ConfigMap,
  platform: PlatformResource | undefined,
): Vouching | undefined {
  const reference = platformReference(configMap);
  if (!reference) return undefined;
  const namespace = configMap.metadata?.namespace ?? "";
  if (!platform)
    return {
      untrusted: `its controller reference names Platform ${reference.name}, which does not exist in namespace ${namespace}`,
    };
  if (!controlledBy(configMap, platform))
    return {
      untrusted: `its controller reference names Platform ${reference.name} with uid ${reference.uid}, not that Platform's`,
    };
  const config = platformBuildsConfig(platform.metadata.name ?? "", platform.metadata.namespace ?? "");
  const realm = registryTokenSettings(platform.metadata.name ?? "", platform.metadata.namespace ?? "").realm;
  return {
    registryHost: config.registry.url,
    storageHosts: [endpointHost(config.storage.s3.endpoint)],
    tokenRealmHosts: [endpointHost(realm)],
  };
}

/** What the operator hands the builds controller: a Platform controlling a namespace's override vouches for it. */
export const platformBuildsVoucher: OverrideVoucher = {
  type: types.platform,
  vouch: (configMap, cache) => platformVouchedHosts(configMap, referencedPlatform(cache, configMap)),
};
