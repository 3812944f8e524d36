/**
 * The Helm chart deploy/helm/slipway, made from the same bundle: the operator's objects are
 * rendered by bundleFor() with marker values, and each marker becomes a template expression (or,
 * standing for a whole line, template lines: see blocks), so the chart cannot drift from the
 * bundle. CRDs go to the chart's crds/ directory (installed first, never templated).
 */
import { Document, parseDocument } from "yaml";
import { type BundleObject, type BundleOptions, bundleFor } from "./bundle.ts";
import { buildsBlocks, buildsPodMarkers } from "./helm-builds.ts";
import { toYaml } from "./yaml.ts";

export const chartDir = "deploy/helm/slipway";

/** The values this generator owns; other keys of values.yaml (e.g. `providers`) belong to others and are kept. */
export interface ChartValues {
  image: { repository: string; tag: string; pullPolicy: string };
  replicas: number;
  logLevel: string;
  resources: BundleOptions["resources"];
}

const valueKeys: (keyof ChartValues)[] = ["image", "replicas", "logLevel", "resources"];

/** `repository:tag` split at the tag's colon (not a registry port's); the chart needs both parts. */
export function splitImage(image: string): { repository: string; tag: string } {
  const match = /^(.+):([\w][\w.-]{0,127})$/.exec(image);
  if (!match?.[1] || !match[2]) throw new Error(`image "${image}" must be repository:tag`);
  return { repository: match[1], tag: match[2] };
}

export function chartValues(options: BundleOptions): ChartValues {
  return {
    image: { ...splitImage(options.image), pullPolicy: options.imagePullPolicy },
    replicas: options.replicas,
    logLevel: options.logLevel,
    resources: options.resources,
  };
}

const markers = {
  namespace: "HELM-NAMESPACE",
  image: "HELM-IMAGE",
  pullPolicy: "HELM-PULL-POLICY",
  replicas: "HELM-REPLICAS",
  logLevel: "HELM-LOG-LEVEL",
  version: "HELM-VERSION",
  resources: "HELM-RESOURCES",
} as const;

const expressions: [string, string][] = [
  [markers.namespace, "{{ .Release.Namespace }}"],
  [markers.image, '"{{ .Values.image.repository }}:{{ .Values.image.tag }}"'],
  [markers.pullPolicy, "{{ .Values.image.pullPolicy }}"],
  [markers.replicas, "{{ .Values.replicas }}"],
  [markers.logLevel, "{{ .Values.logLevel | quote }}"],
  [markers.version, "{{ .Chart.AppVersion | quote }}"],
];

/** Markers that stand for a whole line (`key: MARKER` or `- MARKER`): it becomes these lines, indented like it. */
const blocks: Record<string, (indent: string) => string[]> = {
  [markers.resources]: (indent) => [
    `${indent}resources:`,
    `{{- toYaml .Values.resources | nindent ${indent.length + 2} }}`,
  ],
  ...buildsBlocks,
};

/** Labels Helm conventionally adds; the chart's objects carry them on top of the bundle's. */
export const helmLabels = ["helm.sh/chart", "app.kubernetes.io/managed-by"];

function template(object: BundleObject): string {
  return toYaml(object)
    .replace(
      /^( *)(?:- |[\w-]+: )(HELM-[A-Z-]+)$/gm,
      (line, indent: string, marker: string) => blocks[marker]?.(indent).join("\n") ?? line,
    )
    .replace(
      /^( *)app\.kubernetes\.io\/part-of: slipway$/gm,
      (line, indent: string) =>
        `${line}\n${indent}helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}\n${indent}app.kubernetes.io/managed-by: {{ .Release.Service }}`,
    )
    .replace(/HELM-[A-Z-]+/g, (marker) => {
      const expression = expressions.find(([m]) => m === marker)?.[1];
      if (!expression) throw new Error(`helm chart: unknown marker ${marker}`);
      return expression;
    });
}

/** templates/<file> → the objects of the bundle (by kind) it renders. */
const templateFiles: [string, string[]][] = [
  ["serviceaccount.yaml", ["ServiceAccount"]],
  ["rbac.yaml", ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]],
  ["deployment.yaml", ["Deployment"]],
  ["service.yaml", ["Service"]],
];

export const ownedTemplates = templateFiles.map(([file]) => `templates/${file}`);

/** Chart.yaml and templates/* (path relative to the chart → content). */
export function chartFiles(options: BundleOptions, header: string): Map<string, string> {
  const marked = bundleFor(markers.namespace, {
    ...options,
    kinds: [],
    image: markers.image,
    imagePullPolicy: markers.pullPolicy as BundleOptions["imagePullPolicy"],
    replicas: markers.replicas as unknown as number,
    logLevel: markers.logLevel as BundleOptions["logLevel"],
    version: markers.version,
    resources: markers.resources as unknown as BundleOptions["resources"],
    operatorPod: buildsPodMarkers,
  });
  const files = new Map<string, string>();
  files.set(
    "Chart.yaml",
    `${header}${toYaml({
      apiVersion: "v2",
      name: "slipway",
      description: "Slipway: runs an ML platform on Kubernetes (operator, CRDs, RBAC)",
      type: "application",
      version: options.version,
      appVersion: options.version,
    })}`,
  );
  for (const [file, kinds] of templateFiles) {
    const objects = marked.filter((object) => kinds.includes(object.kind ?? ""));
    files.set(`templates/${file}`, header + objects.map(template).join("---\n"));
  }
  return files;
}

/** values.yaml with this generator's keys set to `values` and every other key (and comment) kept. */
export function mergeValues(existing: string | undefined, values: ChartValues): string {
  const document = existing?.trim() ? parseDocument(existing) : new Document({});
  document.commentBefore = ` ${valueKeys.join(", ")}: generated by \`npm run generate\` (edits are overwritten).\n Other keys belong to their templates and are kept.`;
  for (const [key, value] of Object.entries(values)) document.set(key, document.createNode(value));
  return document.toString({ lineWidth: 0 });
}

/** This generator's keys as they are in a values.yaml. */
export function ownValues(content: string): Record<string, unknown> {
  const all = parseDocument(content).toJS() as Record<string, unknown>;
  return Object.fromEntries(valueKeys.map((key) => [key, all[key]]));
}
