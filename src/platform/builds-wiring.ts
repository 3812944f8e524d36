/**
 * How ImageBuilds in a platform's namespace reach its registry and object store (pure): the builds
 * area's per-namespace override ConfigMap (src/builds/override.ts), written by the platform with its
 * registry (htpasswd credentials) and object store, merged by the operator over its own builds
 * configuration. Nothing in the builds area knows about platforms.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { stringify } from "yaml";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { overrideConfigMapName, overrideKey } from "../builds/override.ts";
import { ownerReference } from "../kube/owners.ts";
import { labels } from "./component-objects.ts";
import { credentialSecrets, registryHost } from "./credentials.ts";
import { serviceName } from "./names.ts";

/** The builds configuration fields the platform provides (registry and storage: all a namespace may set). */
export function platformBuildsConfig(platform: string, namespace: string) {
  const secrets = credentialSecrets(platform);
  return {
    registry: {
      type: "docker",
      url: registryHost(platform, namespace),
      credentialsSecret: secrets.registry,
      insecure: true,
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
