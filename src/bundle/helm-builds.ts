/**
 * The chart's image-build configuration: when `.Values.builds` is set, templates/builds-config.yaml
 * (hand-written, not generated) renders it as the ConfigMap `slipway-builds-config`, and the
 * operator Deployment mounts it with SLIPWAY_BUILDS_CONFIG naming the file. These insertions
 * into the generated Deployment template are guarded by `if .Values.builds`, so without builds the
 * chart renders exactly the bundle.
 */
import { configEnvironmentVariable } from "../builds/config.ts";

export const buildsConfigMapName = "slipway-builds-config";
export const buildsConfigDir = "/etc/slipway/builds";

/** Inserts `block` (indented like the anchor's list item) after the anchor; a missing anchor is an error. */
function insertAfter(text: string, anchor: RegExp, block: (indent: string) => string[]): string {
  const match = anchor.exec(text);
  if (!match)
    throw new Error(
      `helm chart: the Deployment template has no ${anchor} to add the builds configuration to`,
    );
  const indent = match[1] ?? "";
  const lines = ["{{- if .Values.builds }}", ...block(indent), "{{- end }}"];
  const end = match.index + match[0].length;
  return `${text.slice(0, end)}\n${lines.join("\n")}${text.slice(end)}`;
}

/** The operator Deployment's template with the builds configuration mounted when `.Values.builds` is set. */
export function mountBuildsConfig(deployment: string): string {
  let text = insertAfter(deployment, /^( *)template:\n\1 {2}metadata:$/m, (indent) => [
    // a changed configuration rolls the operator out (it reads the file once)
    `${indent}    annotations:`,
    `${indent}      checksum/builds-config: {{ toYaml .Values.builds | sha256sum }}`,
  ]);
  text = insertAfter(text, /^( *)- name: LOG_LEVEL\n *value: .*$/m, (indent) => [
    `${indent}- name: ${configEnvironmentVariable}`,
    `${indent}  value: ${buildsConfigDir}/config.yaml`,
  ]);
  text = insertAfter(text, /^( *)- name: tmp\n *mountPath: \/tmp$/m, (indent) => [
    `${indent}- name: builds-config`,
    `${indent}  mountPath: ${buildsConfigDir}`,
    `${indent}  readOnly: true`,
  ]);
  return insertAfter(text, /^( *)- name: tmp\n *emptyDir: \{\}$/m, (indent) => [
    `${indent}- name: builds-config`,
    `${indent}  configMap:`,
    `${indent}    name: ${buildsConfigMapName}`,
  ]);
}
