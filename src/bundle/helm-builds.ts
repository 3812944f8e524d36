/**
 * The chart's image-build configuration: when `.Values.builds` is set, templates/builds-config.yaml
 * (hand-written, not generated) renders it as the ConfigMap `slipway-builds-config`, and the
 * operator Deployment mounts it with SLIPWAY_BUILDS_CONFIG naming the file. The Deployment gets
 * these parts as markers (buildsPodMarkers, placed by bundleFor) that become template lines guarded
 * by `if .Values.builds` (buildsBlocks), so without builds the chart renders exactly the bundle.
 */
import type { V1EnvVar, V1Volume, V1VolumeMount } from "@kubernetes/client-node";
import { configEnvironmentVariable } from "../builds/config.ts";
import type { OperatorPodAdditions } from "./bundle.ts";

export const buildsConfigMapName = "slipway-builds-config";
export const buildsConfigDir = "/etc/slipway/builds";

const markers = {
  annotations: "HELM-BUILDS-ANNOTATIONS",
  env: "HELM-BUILDS-ENV",
  volumeMount: "HELM-BUILDS-VOLUME-MOUNT",
  volume: "HELM-BUILDS-VOLUME",
} as const;

/** Where the builds parts go in the operator's pod: each marker stands for a whole line of the template. */
export const buildsPodMarkers: OperatorPodAdditions = {
  annotations: markers.annotations as unknown as Record<string, string>,
  env: [markers.env as unknown as V1EnvVar],
  volumeMounts: [markers.volumeMount as unknown as V1VolumeMount],
  volumes: [markers.volume as unknown as V1Volume],
};

const ifBuilds = (lines: string[]) => ["{{- if .Values.builds }}", ...lines, "{{- end }}"];

/** Marker → the template lines it becomes, indented like the marker's line. */
export const buildsBlocks: Record<string, (indent: string) => string[]> = {
  // a changed configuration rolls the operator out (it reads the file once)
  [markers.annotations]: (indent) =>
    ifBuilds([
      `${indent}annotations:`,
      `${indent}  checksum/builds-config: {{ toYaml .Values.builds | sha256sum }}`,
    ]),
  [markers.env]: (indent) =>
    ifBuilds([
      `${indent}- name: ${configEnvironmentVariable}`,
      `${indent}  value: ${buildsConfigDir}/config.yaml`,
    ]),
  [markers.volumeMount]: (indent) =>
    ifBuilds([
      `${indent}- name: builds-config`,
      `${indent}  mountPath: ${buildsConfigDir}`,
      `${indent}  readOnly: true`,
    ]),
  [markers.volume]: (indent) =>
    ifBuilds([
      `${indent}- name: builds-config`,
      `${indent}  configMap:`,
      `${indent}    name: ${buildsConfigMapName}`,
    ]),
};
