/**
 * The Kubernetes objects of one Component (pure): its Deployment or StatefulSet, Service, Ingress and
 * PersistentVolumeClaims, each owned by the Component.
 */
import type {
  V1ConfigMap,
  V1Container,
  V1Deployment,
  V1Ingress,
  V1ObjectMeta,
  V1PersistentVolumeClaim,
  V1PodTemplateSpec,
  V1Probe,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1Volume,
} from "@kubernetes/client-node";
import type { ComponentResource } from "../apis/platform/component.ts";
import { defaultProgressDeadlineSeconds } from "../apis/platform/platform.ts";
import { ownerReference } from "../kube/owners.ts";
import { contentHash } from "../lib/canonical.ts";

export const labels = {
  component: "platform.slipway.dev/component",
  platform: "platform.slipway.dev/platform",
} as const;
export const annotations = {
  /** On a workload: the Component generation it was rendered from. */
  renderedFrom: "platform.slipway.dev/component-generation",
  /** On a pod template: changing it rolls the pods (`slipway restart`). */
  restartedAt: "platform.slipway.dev/restartedAt",
  /** On a pod template (and so its pods): a hash of the rest of the template, to tell current pods from old ones. */
  templateHash: "platform.slipway.dev/template-hash",
  /** On every child: a hash of what the controller last applied, so an unchanged rendering is not re-sent. */
  appliedHash: "platform.slipway.dev/applied-hash",
} as const;

export const pvcName = (component: ComponentResource, volume: string) =>
  `${component.metadata.name}-${volume}`;

function meta(component: ComponentResource, name: string = component.metadata.name ?? ""): V1ObjectMeta {
  return {
    name,
    namespace: component.metadata.namespace,
    labels: selectorLabels(component),
    ownerReferences: [ownerReference(component)],
  };
}

/** The labels that say which of the platform's components a workload runs (e.g. `workflow-engine`). */
export function componentLabels(component: string): Record<string, string> {
  return { "app.kubernetes.io/name": component, "app.kubernetes.io/part-of": "slipway" };
}

export function selectorLabels(component: ComponentResource): Record<string, string> {
  return { ...componentLabels(component.spec.component), [labels.component]: component.metadata.name ?? "" };
}

/**
 * Readiness, startup and liveness on the first port: HTTP GET on the paths the catalog names, else a
 * TCP connect. Liveness begins only once the startup probe passed (up to 10 minutes: initdb,
 * migrations, a loaded machine), so a slow start is never killed into a restart loop; after that a
 * service silent for 30 s is restarted. Each probe waits 5 s for an answer (the 1 s default restarted
 * a busy single-worker mlflow on the real node).
 */
function probes(
  spec: ComponentResource["spec"],
): Pick<V1Container, "readinessProbe" | "startupProbe" | "livenessProbe"> {
  const port = spec.ports[0];
  if (!port) return {};
  const probe = (path: string | undefined): V1Probe => ({
    ...(path ? { httpGet: { path, port: port.port } } : { tcpSocket: { port: port.port } }),
    timeoutSeconds: 5,
  });
  return {
    readinessProbe: { ...probe(spec.readinessPath), periodSeconds: 5 },
    startupProbe: { ...probe(spec.livenessPath), periodSeconds: 5, failureThreshold: 120 },
    livenessProbe: { ...probe(spec.livenessPath), periodSeconds: 10, failureThreshold: 3 },
  };
}

function mainContainer(spec: ComponentResource["spec"]): V1Container {
  const container: V1Container = {
    name: spec.component,
    image: spec.image,
    env: spec.env,
    ports: spec.ports.map((p) => ({ name: p.name, containerPort: p.port })),
    volumeMounts: [
      ...spec.volumes.map((v) => ({ name: v.name, mountPath: v.mountPath })),
      ...(spec.secretMounts ?? []).map((m) => ({ name: m.name, mountPath: m.mountPath, readOnly: true })),
    ],
    // the reason a crash-looping service gives reaches the Component's status
    terminationMessagePolicy: "FallbackToLogsOnError",
    ...probes(spec),
  };
  if (spec.command) container.command = spec.command;
  if (spec.args) container.args = spec.args;
  if (spec.resources) container.resources = spec.resources;
  return container;
}

function podVolumes(component: ComponentResource): V1Volume[] {
  const spec = component.spec;
  return [
    ...spec.volumes.map((v) => ({
      name: v.name,
      persistentVolumeClaim: { claimName: pvcName(component, v.name) },
    })),
    ...(spec.secretMounts ?? []).map((m) => ({
      name: m.name,
      secret: { secretName: m.secretName, items: [{ key: m.key, path: m.key }] },
    })),
  ];
}

function podTemplate(component: ComponentResource): V1PodTemplateSpec {
  const spec = component.spec;
  const initContainers = (spec.initContainers ?? []).map(
    (init): V1Container => ({
      name: init.name,
      image: spec.image,
      command: init.command,
      ...(init.env ? { env: init.env } : {}),
      terminationMessagePolicy: "FallbackToLogsOnError",
    }),
  );
  const podAnnotations: Record<string, string> = { ...(spec.podAnnotations ?? {}) };
  if (spec.restartedAt) podAnnotations[annotations.restartedAt] = spec.restartedAt;
  const template: V1PodTemplateSpec = {
    metadata: { labels: selectorLabels(component), annotations: podAnnotations },
    spec: {
      ...(initContainers.length ? { initContainers } : {}),
      containers: [mainContainer(spec)],
      volumes: podVolumes(component),
      ...(spec.serviceAccount ? { serviceAccountName: component.metadata.name ?? "" } : {}),
      ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
      ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
    },
  };
  podAnnotations[annotations.templateHash] = objectHash(template);
  return template;
}

/** A short, stable hash of an object (key order does not matter; list order does). */
export const objectHash = (object: unknown): string => contentHash(object);

/**
 * The live workload no longer holds what was rendered for it in the fields people change by hand
 * (`kubectl scale`, `kubectl set image`). Its applied-hash annotation cannot tell: it records what
 * was sent, not what is there now. Other hand edits stay until the rendering changes.
 */
export function workloadDrifted(
  live: V1Deployment | V1StatefulSet,
  rendered: V1Deployment | V1StatefulSet,
): boolean {
  const images = (workload: V1Deployment | V1StatefulSet) =>
    (workload.spec?.template.spec?.containers ?? []).map((c) => `${c.name}=${c.image}`).join(" ");
  return (live.spec?.replicas ?? 1) !== (rendered.spec?.replicas ?? 1) || images(live) !== images(rendered);
}

/** How long a rollout may make no progress before the Component fails (the Platform's update policy). */
export const progressDeadlineSeconds = (component: ComponentResource): number =>
  component.spec.progressDeadlineSeconds ?? defaultProgressDeadlineSeconds;

export function renderWorkload(component: ComponentResource): V1Deployment | V1StatefulSet {
  const spec = component.spec;
  const metadata = {
    ...meta(component),
    annotations: { [annotations.renderedFrom]: String(component.metadata.generation ?? 0) },
  };
  const common = {
    replicas: spec.stopped ? 0 : spec.replicas,
    selector: { matchLabels: selectorLabels(component) },
    template: podTemplate(component),
  };
  if (spec.workload === "StatefulSet") {
    return {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata,
      spec: { ...common, serviceName: component.metadata.name ?? "" },
    };
  }
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata,
    spec: { ...common, progressDeadlineSeconds: progressDeadlineSeconds(component) },
  };
}

export function renderService(component: ComponentResource): V1Service | undefined {
  if (component.spec.ports.length === 0) return undefined;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(component),
    spec: {
      selector: selectorLabels(component),
      ports: component.spec.ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.port })),
    },
  };
}

export function renderIngress(component: ComponentResource): V1Ingress | undefined {
  const ingress = component.spec.ingress;
  const port = component.spec.ports[0];
  if (!ingress || !port) return undefined;
  const tls = ingress.tls;
  const issuer = tls ? issuerAnnotations(tls) : undefined;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { ...meta(component), ...(issuer ? { annotations: issuer } : {}) },
    spec: {
      ...(ingress.className ? { ingressClassName: ingress.className } : {}),
      ...(tls && ingress.host ? { tls: [{ hosts: [ingress.host], secretName: tls.secretName }] } : {}),
      rules: [
        {
          ...(ingress.host ? { host: ingress.host } : {}),
          http: {
            paths: [
              {
                path: ingress.path,
                pathType: "Prefix",
                backend: { service: { name: component.metadata.name ?? "", port: { number: port.port } } },
              },
            ],
          },
        },
      ],
    },
  };
}

type IngressTls = NonNullable<NonNullable<ComponentResource["spec"]["ingress"]>["tls"]>;

/** The annotation cert-manager's ingress-shim reads to issue the TLS Secret's certificate, if an issuer is named. */
function issuerAnnotations(tls: IngressTls): Record<string, string> | undefined {
  if (tls.clusterIssuer) return { "cert-manager.io/cluster-issuer": tls.clusterIssuer };
  if (tls.issuer) return { "cert-manager.io/issuer": tls.issuer };
  return undefined;
}

/** The ConfigMap the service reads by name (Argo's controller configuration), when it has one. */
export function renderConfigMap(component: ComponentResource): V1ConfigMap | undefined {
  const configMap = component.spec.configMap;
  if (!configMap) return undefined;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta(component, configMap.name),
    data: configMap.data,
  };
}

/** The Component's own ServiceAccount, when its pods run as one. */
export function renderServiceAccount(component: ComponentResource): V1ServiceAccount | undefined {
  if (!component.spec.serviceAccount) return undefined;
  return { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(component) };
}

export function renderClaims(component: ComponentResource): V1PersistentVolumeClaim[] {
  return component.spec.volumes.map((v) => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: meta(component, pvcName(component, v.name)),
    spec: {
      accessModes: [v.accessMode],
      resources: { requests: { storage: v.size } },
      ...(v.storageClassName ? { storageClassName: v.storageClassName } : {}),
    },
  }));
}
