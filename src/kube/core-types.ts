/** Core (group "") kinds several controllers read, named once. */
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
