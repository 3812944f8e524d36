/** The resource types the image-build controller reads and writes. */

import { ImageBuildKind } from "../apis/builds/imagebuild.ts";
import { resourceTypeOf } from "../apis/kind.ts";
import { podType, secretType } from "../kube/core-types.ts";
import type { ResourceType } from "../kube/types.ts";
import { overrideConfigMapName } from "./override.ts";

/** Build Jobs and their pods carry it (build-job.ts jobLabels): the operator caches those, not every Job and Pod. */
const buildLabelSelector = "app.kubernetes.io/component=image-build";

export const types = {
  imageBuild: resourceTypeOf(ImageBuildKind),
  job: {
    group: "batch",
    version: "v1",
    kind: "Job",
    plural: "jobs",
    namespaced: true,
    labelSelector: buildLabelSelector,
  },
  pod: { ...podType, labelSelector: buildLabelSelector },
  secret: secretType,
  /** Only the namespaces' override ConfigMaps are cached, not every ConfigMap of the cluster. */
  overrideConfigMap: {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
    namespaced: true,
    fieldSelector: `metadata.name=${overrideConfigMapName}`,
  },
} satisfies Record<string, ResourceType>;
