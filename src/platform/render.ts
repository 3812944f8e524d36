/** Renders a Platform's spec into the desired spec of each enabled Component (pure). */

import type { Static } from "@sinclair/typebox";
import type { SpecOf } from "../apis/kind.ts";
import type { ComponentKind, ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource, PlatformSpec } from "../apis/platform/platform.ts";
import { type ComponentName, defaultSizes } from "../apis/platform/schemas.ts";
import { ownerReference } from "../kube/owners.ts";
import { type CatalogComponent, catalog, type Release, serviceName } from "./catalog.ts";
import { inventoryFinalizer } from "./component-inventory.ts";
import { labels } from "./component-objects.ts";
import type { EnvVar, RenderContext } from "./contracts.ts";
import { types } from "./resource-types.ts";
import { trustedProxies } from "./trusted-proxies.ts";

export type ComponentSpec = SpecOf<typeof ComponentKind>;
type Spec = Static<typeof PlatformSpec>;

export interface DesiredComponent {
  name: ComponentName;
  /** The Component object's name (and of its workload, Service, Ingress). */
  objectName: string;
  spec: ComponentSpec;
  /** Where the service answers in the cluster (none for a service nothing calls). */
  endpoint?: string;
}

/** The Component object the Platform controller applies for `component`, owned by `platform`. */
export function componentObject(platform: PlatformResource, component: DesiredComponent): ComponentResource {
  const name = platform.metadata.name ?? "";
  return {
    apiVersion: `${types.component.group}/${types.component.version}`,
    kind: types.component.kind,
    metadata: {
      name: component.objectName,
      namespace: platform.metadata.namespace,
      labels: {
        [labels.platform]: name,
        "app.kubernetes.io/name": component.name,
        "app.kubernetes.io/part-of": "slipway",
      },
      ownerReferences: [ownerReference(platform)],
      // created with it, so the component controller need not add it (it does for an older Component)
      finalizers: [inventoryFinalizer],
    },
    spec: component.spec,
  };
}

export function isEnabled(spec: Spec, name: ComponentName): boolean {
  return spec.components?.[name]?.enabled !== false;
}

/** What the operator knows of the cluster, beyond the Platform. */
export interface RenderOptions {
  /** The cluster's node and pod networks, as the installer gave them (SLIPWAY_OUTBOUND_DENY). */
  clusterNetworks?: readonly string[];
}

/**
 * The desired Components of the platform `platform` in `namespace` at `release`, in catalog order;
 * disabled components are left out.
 */
export function renderComponents(
  platform: string,
  namespace: string,
  spec: Spec,
  release: Release,
  options: RenderOptions = {},
): DesiredComponent[] {
  const proxies = trustedProxies(spec, options.clusterNetworks);
  const context: RenderContext = {
    platform,
    namespace,
    release,
    ...(proxies.length ? { trustedProxies: proxies } : {}),
  };
  return catalog
    .filter((entry) => isEnabled(spec, entry.name))
    .map((entry) => ({
      name: entry.name,
      objectName: serviceName(platform, entry.name),
      spec: renderComponent(context, spec, entry),
      ...(entry.endpoint ? { endpoint: entry.endpoint(context) } : {}),
    }));
}

function renderComponent(context: RenderContext, spec: Spec, entry: CatalogComponent): ComponentSpec {
  const { release } = context;
  const override = spec.components?.[entry.name] ?? {};
  const env = [
    { name: "SLIPWAY_LOG_LEVEL", value: spec.logLevel ?? "INFO" },
    ...entry.env(context),
    ...(override.env ?? []),
  ];
  const rendered: ComponentSpec = {
    component: entry.name,
    version: release.version,
    workload: entry.workload,
    image: (spec.allowImageOverrides === true ? override.image : undefined) ?? release.images[entry.name],
    replicas: override.replicas ?? 1,
    stopped: spec.stopped ?? false,
    env: lastWins(env),
    ports: entry.port ? [entry.port] : [],
    volumes: entry.volume
      ? [
          {
            name: entry.volume.name,
            mountPath: entry.volume.mountPath,
            size: spec.storage?.[entry.volume.sizeField] ?? defaultSizes[entry.volume.sizeField],
            accessMode: spec.singleNode === false ? "ReadWriteMany" : "ReadWriteOnce",
            ...(spec.storage?.storageClassName ? { storageClassName: spec.storage.storageClassName } : {}),
          },
        ]
      : [],
    dependencies: entry.dependsOn.filter((dependency) => isEnabled(spec, dependency)),
  };
  const placement = {
    ...(override.nodeSelector ? { nodeSelector: override.nodeSelector } : {}),
    ...(override.tolerations ? { tolerations: override.tolerations } : {}),
  };
  Object.assign(
    rendered,
    startup(Object.keys(placement).length ? { ...context, placement } : context, entry),
  );
  if (entry.ownServiceAccount) rendered.serviceAccount = true;
  if (spec.restartedAt) rendered.restartedAt = spec.restartedAt;
  const deadline = spec.updatePolicy?.progressDeadlineSeconds;
  if (deadline !== undefined) rendered.progressDeadlineSeconds = deadline;
  if (entry.ingressPath && spec.ingress?.enabled !== false) {
    rendered.ingress = {
      path: entry.ingressPath,
      ...(spec.host ? { host: spec.host } : {}),
      ...(spec.ingress?.className ? { className: spec.ingress.className } : {}),
      ...(spec.ingress?.tls ? { tls: spec.ingress.tls } : {}),
    };
    // behind the TLS Ingress, `slipway server` tells browsers to use HTTPS only
    if (spec.ingress?.tls && rendered.args) rendered.args = [...rendered.args, "--hsts"];
  }
  if (override.resources) rendered.resources = override.resources;
  if (override.nodeSelector) rendered.nodeSelector = override.nodeSelector;
  if (override.tolerations) rendered.tolerations = override.tolerations;
  if (override.podAnnotations) rendered.podAnnotations = override.podAnnotations;
  return rendered;
}

/** How the entry's service starts and is probed, per its image's contract (contracts.ts). */
function startup(context: RenderContext, entry: CatalogComponent): Partial<ComponentSpec> {
  return {
    ...(entry.command ? { command: entry.command } : {}),
    ...(entry.args ? { args: entry.args(context) } : {}),
    ...(entry.readinessPath ? { readinessPath: entry.readinessPath } : {}),
    ...(entry.livenessPath ? { livenessPath: entry.livenessPath } : {}),
    ...(entry.secretMounts ? { secretMounts: entry.secretMounts(context) } : {}),
    ...(entry.initContainers ? { initContainers: entry.initContainers(context) } : {}),
    ...(entry.configMap ? { configMap: entry.configMap(context) } : {}),
  };
}

/**
 * Environment variables with later entries replacing earlier ones of the same name (overrides win);
 * a replaced variable moves to the end, after the variables a `$(VAR)` in it may name.
 */
function lastWins(env: EnvVar[]): EnvVar[] {
  const byName = new Map<string, EnvVar>();
  for (const variable of env) {
    byName.delete(variable.name);
    byName.set(variable.name, variable);
  }
  return [...byName.values()];
}
