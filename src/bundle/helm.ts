/**
 * The Helm chart deploy/helm/slipway, made from the same bundle: the operator's objects are
 * rendered by bundleFor() with marker values, and each marker becomes a template expression (or,
 * standing for a whole line, template lines: see blocks), so the chart cannot drift from the
 * bundle. CRDs go to the chart's crds/ directory (installed first, never templated).
 */
import { Document, parseDocument } from "yaml";
import { type BundleObject, type BundleOptions, bundleFor } from "./bundle.ts";
import { flowControlKinds } from "./flow-control.ts";
import { buildsBlocks, buildsPodMarkers } from "./helm-builds.ts";
import { runFinalizerPolicyApi, runFinalizerPolicyKinds } from "./run-finalizer.ts";
import { toYaml } from "./yaml.ts";

export const chartDir = "deploy/helm/slipway";

/** The values this generator owns; other keys of values.yaml (e.g. `providers`) belong to others and are kept. */
export interface ChartValues {
  image: { repository: string; tag: string; pullPolicy: string };
  replicas: number;
  logLevel: string;
  resources: BundleOptions["resources"];
  /** The namespaces the operator serves instead of its own (empty: the release namespace). */
  namespaces: string[];
  /** The operator serves every namespace (a ClusterRole); wins over `namespaces`. */
  allNamespaces: boolean;
  /** The ServiceAccounts a Provider may name (`namespace/name`, `*\/name`): the operator's allowlist. */
  providerServiceAccounts: string[];
  /** The operator's outbound policy: hosts or CIDRs allowed (SLIPWAY_OUTBOUND_ALLOW). */
  outboundAllow: string[];
  /** The cluster's node and pod networks, refused unless allowed (SLIPWAY_OUTBOUND_DENY). */
  outboundDeny: string[];
  /** Namespaces allowed the operator's ambient cloud credentials (SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES). */
  ambientCredentialsNamespaces: string[];
}

const valueKeys: (keyof ChartValues)[] = [
  "image",
  "replicas",
  "logLevel",
  "resources",
  "namespaces",
  "allNamespaces",
  "providerServiceAccounts",
  "outboundAllow",
  "outboundDeny",
  "ambientCredentialsNamespaces",
];

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
    namespaces: Array.isArray(options.serves) ? options.serves : [],
    allNamespaces: options.serves === "all",
    providerServiceAccounts: options.providerServiceAccounts ?? [],
    outboundAllow: options.outboundAllow ?? [],
    outboundDeny: options.outboundDeny ?? [],
    ambientCredentialsNamespaces: options.ambientCredentialsNamespaces ?? [],
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
  servedNamespace: "HELM-SERVED-NAMESPACE",
  providerServiceAccounts: "HELM-PROVIDER-SERVICE-ACCOUNTS",
  outboundAllow: "HELM-OUTBOUND-ALLOW",
  outboundDeny: "HELM-OUTBOUND-DENY",
  ambientCredentialsNamespaces: "HELM-AMBIENT-CREDENTIALS-NAMESPACES",
} as const;

/** The operator's list variables: rendered only when their value has entries. */
const listVariables: [variable: string, key: keyof typeof markers][] = [
  ["SLIPWAY_PROVIDER_SERVICE_ACCOUNTS", "providerServiceAccounts"],
  ["SLIPWAY_OUTBOUND_ALLOW", "outboundAllow"],
  ["SLIPWAY_OUTBOUND_DENY", "outboundDeny"],
  ["SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES", "ambientCredentialsNamespaces"],
];

const expressions: [string, string][] = [
  [markers.namespace, "{{ .Release.Namespace }}"],
  [markers.image, '"{{ .Values.image.repository }}:{{ .Values.image.tag }}"'],
  [markers.pullPolicy, "{{ .Values.image.pullPolicy }}"],
  [markers.replicas, "{{ .Values.replicas }}"],
  [markers.logLevel, "{{ .Values.logLevel | quote }}"],
  [markers.version, "{{ .Chart.AppVersion | quote }}"],
  [markers.servedNamespace, "{{ . }}"],
  ...listVariables.map(([, key]): [string, string] => [
    markers[key],
    `{{ join "," .Values.${key} | quote }}`,
  ]),
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
  return templateText(toYaml(object));
}

/**
 * The token-request rule (rbac.ts nameTokenRequests) for the values: only when they name an
 * allowlist, limited to its ServiceAccount names (each entry's part after the `/`, each once).
 */
function tokenRuleTemplate(yaml: string): string {
  return yaml.replace(
    /^( *)- apiGroups:\n((?:\1 {2}.*\n)*?)\1 {2}resourceNames:\n\1 {4}- HELM-PROVIDER-SERVICE-ACCOUNTS\n/m,
    (_rule, indent: string, fields: string) =>
      [
        "{{- if .Values.providerServiceAccounts }}",
        `${indent}- apiGroups:`,
        `${fields}${indent}  resourceNames:`,
        "{{- $names := list }}",
        '{{- range .Values.providerServiceAccounts }}{{ $names = append $names (last (splitList "/" .)) }}{{- end }}',
        "{{- range uniq $names | sortAlpha }}",
        `${indent}    - {{ . | quote }}`,
        "{{- end }}",
        "{{- end }}",
        "",
      ].join("\n"),
  );
}

/** An object's YAML with its markers as template expressions. */
function templateText(yaml: string): string {
  // a list's variable only when values name entries (as the bundle: an empty env value is dropped by
  // the API server, and apply would then change the Deployment every time)
  const listed = listVariables.reduce(
    (text, [variable, key]) =>
      text.replace(
        new RegExp(`^( *)- name: ${variable}\\n *value: ${markers[key]}\\n`, "m"),
        (entry) => `{{- if .Values.${key} }}\n${entry}{{- end }}\n`,
      ),
    tokenRuleTemplate(yaml),
  );
  return listed
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

/** The operator's namespace flag for the values (the three forms of servedArgs in bundle.ts). */
function servedArgsTemplate(text: string): string {
  return text.replace(/^( *)- --namespaces=\$\(POD_NAMESPACE\)$/m, (line, indent: string) =>
    [
      "{{- if .Values.allNamespaces }}",
      `${indent}- --all-namespaces`,
      "{{- else if .Values.namespaces }}",
      `${indent}- --namespaces={{ join "," .Values.namespaces }}`,
      "{{- else }}",
      line,
      "{{- end }}",
    ].join("\n"),
  );
}

/** The webhook's namespace selector for the values: none for all namespaces, the list, or the release's. */
function servedSelectorTemplate(text: string): string {
  return text.replace(
    /^( *)namespaceSelector:\n(\1 +matchExpressions:\n\1 +- key: kubernetes\.io\/metadata\.name\n\1 +operator: In\n\1 +values:\n)( *)(- HELM-NAMESPACE)$/m,
    (_match, indent: string, selector: string, valueIndent: string, own: string) =>
      [
        "{{- if not .Values.allNamespaces }}",
        `${indent}namespaceSelector:`,
        `${selector}{{- if .Values.namespaces }}`,
        `{{- toYaml .Values.namespaces | nindent ${valueIndent.length} }}`,
        "{{- else }}",
        `${valueIndent}${own}`,
        "{{- end }}",
        "{{- end }}",
      ].join("\n"),
  );
}

const rbacKinds = ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];
const documents = (objects: BundleObject[]) => objects.map((object) => `---\n${template(object)}`).join("");

/**
 * templates/rbac.yaml: the bundle's RBAC for each way of serving namespaces, chosen by the values;
 * a served namespace's Role and RoleBinding repeat for each of `namespaces` (inside `range`, the
 * chart's own fields are `$.`).
 */
function rbacTemplate(render: (serves: BundleOptions["serves"]) => BundleObject[]): string {
  const rbac = (serves: BundleOptions["serves"]) =>
    render(serves).filter((o) => rbacKinds.includes(o.kind ?? ""));
  const listed = rbac([markers.servedNamespace]);
  const inServed = (o: BundleObject) => o.metadata?.namespace === markers.servedNamespace;
  const perNamespace = documents(listed.filter(inServed)).replace(
    /(?<=[{\s(])\.(Release|Chart|Values)\./g,
    "$.$1.",
  );
  return [
    "{{- if .Values.allNamespaces }}",
    documents(rbac("all")),
    "{{- else if .Values.namespaces }}",
    documents(listed.filter((o) => !inServed(o))),
    "{{- range .Values.namespaces }}",
    perNamespace,
    "{{- end }}",
    "{{- else }}",
    documents(rbac(undefined)),
    "{{- end }}",
  ].join("\n");
}

/**
 * templates/<file> → the objects of the bundle (by kind) it renders, and the API (`group/version/Kind`)
 * it renders them only where the cluster serves (an older one installs without them).
 */
const templateFiles: [string, string[], string?][] = [
  ["serviceaccount.yaml", ["ServiceAccount"]],
  ["deployment.yaml", ["Deployment"]],
  ["service.yaml", ["Service"]],
  ["webhook.yaml", ["ValidatingWebhookConfiguration"]],
  ["run-finalizer-policy.yaml", runFinalizerPolicyKinds, runFinalizerPolicyApi],
  ["flow-control.yaml", flowControlKinds],
];

const servedOnly = (api: string | undefined, text: string) =>
  api ? `{{- if .Capabilities.APIVersions.Has "${api}" }}\n${text}{{- end }}\n` : text;

export const ownedTemplates = [...templateFiles.map(([file]) => `templates/${file}`), "templates/rbac.yaml"];

/** Chart.yaml and templates/* (path relative to the chart → content). */
export function chartFiles(options: BundleOptions, header: string): Map<string, string> {
  const marked = (serves: BundleOptions["serves"]) =>
    bundleFor(markers.namespace, {
      ...options,
      serves,
      // the CRDs are in crds/, not templated; the kinds still give the RBAC of their versions
      kinds: options.kinds,
      image: markers.image,
      imagePullPolicy: markers.pullPolicy as BundleOptions["imagePullPolicy"],
      replicas: markers.replicas as unknown as number,
      logLevel: markers.logLevel as BundleOptions["logLevel"],
      version: markers.version,
      resources: markers.resources as unknown as BundleOptions["resources"],
      operatorPod: buildsPodMarkers,
      providerServiceAccounts: [markers.providerServiceAccounts],
      outboundAllow: [markers.outboundAllow],
      outboundDeny: [markers.outboundDeny],
      ambientCredentialsNamespaces: [markers.ambientCredentialsNamespaces],
    });
  const ownNamespace = marked(undefined);
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
  for (const [file, kinds, api] of templateFiles) {
    const objects = ownNamespace.filter((object) => kinds.includes(object.kind ?? ""));
    const text = objects.map((object) => templateText(servedSelectorTemplate(toYaml(object))));
    files.set(`templates/${file}`, header + servedOnly(api, servedArgsTemplate(text.join("---\n"))));
  }
  files.set("templates/rbac.yaml", `${header}${rbacTemplate(marked)}\n`);
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
