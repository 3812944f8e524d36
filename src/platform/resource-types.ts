/** The resource types the platform controllers read and write. */

import { resourceTypeOf } from "../apis/kind.ts";
import { ComponentKind } from "../apis/platform/component.ts";
import { PlatformKind } from "../apis/platform/platform.ts";
import { podType, secretType, serviceAccountType } from "../kube/core-types.ts";
import type { ResourceType } from "../kube/types.ts";
import { labels } from "./component-objects.ts";

export const types = {
  platform: resourceTypeOf(PlatformKind),
  component: resourceTypeOf(ComponentKind),
  deployment: { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true },
  statefulSet: {
    group: "apps",
    version: "v1",
    kind: "StatefulSet",
    plural: "statefulsets",
    namespaced: true,
  },
  service: { group: "", version: "v1", kind: "Service", plural: "services", namespaced: true },
  serviceAccount: serviceAccountType,
  configMap: { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  /** Only Components' ConfigMaps (renderConfigMap labels each with its Component) are cached, not a namespace's others. */
  componentConfigMap: {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
    namespaced: true,
    labelSelector: labels.component,
  },
  secret: secretType,
  pvc: {
    group: "",
    version: "v1",
    kind: "PersistentVolumeClaim",
    plural: "persistentvolumeclaims",
    namespaced: true,
  },
  ingress: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "Ingress",
    plural: "ingresses",
    namespaced: true,
  },
  networkPolicy: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "NetworkPolicy",
    plural: "networkpolicies",
    namespaced: true,
  },
  ingressClass: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "IngressClass",
    plural: "ingressclasses",
    namespaced: false,
  },
  pod: podType,
  endpointSlice: {
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    namespaced: true,
  },
} satisfies Record<string, ResourceType>;
