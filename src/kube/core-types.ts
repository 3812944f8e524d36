/** Core (group "") kinds several parts of Slipway read, named once. */
import { resourcePath } from "./keys.ts";
import type { ResourceType } from "./types.ts";

export const secretType: ResourceType = {
  group: "",
  version: "v1",
  kind: "Secret",
  plural: "secrets",
  namespaced: true,
};

export const configMapType: ResourceType = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

export const crdType: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  namespaced: false,
};

export const podType: ResourceType = {
  group: "",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  namespaced: true,
};

export const namespaceType: ResourceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
};

/** The core Events (`involvedObject`), which the server selects by field; the runtime writes events.k8s.io's. */
export const coreEventType: ResourceType = {
  group: "",
  version: "v1",
  kind: "Event",
  plural: "events",
  namespaced: true,
};

export const serviceAccountType: ResourceType = {
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  namespaced: true,
};

export const nodeType: ResourceType = {
  group: "",
  version: "v1",
  kind: "Node",
  plural: "nodes",
  namespaced: false,
};

/** The log subresource of a pod (text, not JSON). */
export const podLogPath = (namespace: string, name: string) =>
  resourcePath(podType, { namespace, name, subresource: "log" });
