/**
 * The pipelines operator on a control plane for tests and benchmarks: Argo's full-schema CRDs (so
 * the API server validates every Argo object Slipway writes), the controllers in this process, and a
 * thin REST helper that keeps raw JSON.
 */

import type { KubeConfig } from "@kubernetes/client-node";
import pino from "pino";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { Manager } from "../../../src/kube/manager.ts";
import type { ClientRateLimit } from "../../../src/kube/rate-limit.ts";
import { isNotFound, RestClient } from "../../../src/kube/rest.ts";
import type { ControllerSpec, KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { backendsFor } from "../../../src/pipelines/backends.ts";
import { pipelineControllers } from "../../../src/pipelines/controllers/index.ts";
import type { RunOptions } from "../../../src/pipelines/controllers/run.ts";
import { EventDispatcher, type EventsOptions } from "../../../src/pipelines/events/dispatcher.ts";
import { type OutboundSettings, outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { allowlistPolicy } from "../../../src/pipelines/provider-service-accounts.ts";
import { established, untilEstablished } from "./apply-crds.ts";
import { argoCrds, argoVersion } from "./argo-crds.ts";

const versionLabel = "slipway.dev/argo-crds";

export type Obj = KubeObject & Record<string, unknown>;

/** A thin REST helper for tests (raw JSON: no client model drops fields). */
export class Api {
  readonly rest: RestClient;
  constructor(config: KubeConfig) {
    this.rest = new RestClient(config);
  }
  get<T = Obj>(type: ResourceType, namespace: string | undefined, name: string): Promise<T | undefined> {
    return this.rest.request<T>("GET", resourcePath(type, { namespace, name })).catch((error) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }
  async list<T = Obj>(type: ResourceType, namespace?: string, labelSelector?: string): Promise<T[]> {
    const query = labelSelector ? { labelSelector } : {};
    return (await this.rest.request<{ items: T[] }>("GET", resourcePath(type, { namespace }), { query }))
      .items;
  }
  create<T = Obj>(type: ResourceType, object: Obj): Promise<T> {
    return this.rest.request<T>("POST", resourcePath(type, { namespace: object.metadata?.namespace }), {
      body: object,
    });
  }
  apply<T = Obj>(type: ResourceType, object: Obj, subresource?: string): Promise<T> {
    const key = { namespace: object.metadata?.namespace, name: object.metadata?.name, subresource };
    return this.rest.request<T>("PATCH", resourcePath(type, key), {
      query: { fieldManager: "slipway-tests", force: true },
      body: object,
      contentType: "application/apply-patch+yaml",
    });
  }
  mergePatch<T = Obj>(type: ResourceType, namespace: string, name: string, body: unknown): Promise<T> {
    return this.rest.request<T>("PATCH", resourcePath(type, { namespace, name }), {
      body,
      contentType: "application/merge-patch+json",
    });
  }
  delete(type: ResourceType, namespace: string, name: string): Promise<unknown> {
    return this.rest.request("DELETE", resourcePath(type, { namespace, name })).catch((error) => {
      if (!isNotFound(error)) throw error;
    });
  }
  close(): void {
    this.rest.close();
  }
}

/**
 * Server-side applies Argo's CRDs (full schemas) so every Argo object Slipway writes is validated by
 * the API server. They are large (seconds each): skipped when this version is already established.
 */
export async function installArgoCrds(api: Api): Promise<void> {
  const applied: string[] = [];
  for (const crd of await argoCrds()) {
    const name = (crd.metadata as { name: string }).name;
    const existing = await api.get<Obj & { status?: { conditions?: { type: string; status: string }[] } }>(
      crdType,
      undefined,
      name,
    );
    if (established(existing) && existing?.metadata?.labels?.[versionLabel] === argoVersion) continue;
    const metadata = crd.metadata as { labels?: Record<string, string> };
    await api.apply(crdType, {
      ...crd,
      metadata: { ...metadata, labels: { ...metadata.labels, [versionLabel]: argoVersion } },
    });
    applied.push(name);
  }
  // only what was applied is read again until Established (each read is the whole schema)
  const deadline = Date.now() + 60_000;
  for (const name of applied)
    await untilEstablished(name, () => api.get<Obj>(crdType, undefined, name), deadline);
}

export interface PipelinesOperatorOptions {
  run?: RunOptions;
  /** The events configuration, or a dispatcher the caller made (and inspects). */
  events?: EventsOptions | EventDispatcher;
  /** The operator's allowlist of the ServiceAccounts a Provider may name (SLIPWAY_PROVIDER_SERVICE_ACCOUNTS). */
  serviceAccounts?: readonly string[];
  /** The operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW…): the tests' own backends on loopback must be allowed. */
  outbound?: OutboundSettings;
  /**
   * Whose objects it reconciles (default: every namespace's). Test files that run side by side on one
   * control plane each pass their own namespaces, so no file's operator writes another file's objects.
   */
  serves?: (namespace: string) => boolean;
  /**
   * The namespaces an Argo workflow controller serves (SLIPWAY_ARGO_NAMESPACES); default `*`: these
   * tests play Argo's controller themselves (they write the Workflows' status) in every namespace.
   */
  argoNamespaces?: readonly string[];
  /** ManagerOptions.clientRateLimit (default the operator's 20 qps, burst 30); `false`: none, as the bench's floor. */
  clientRateLimit?: ClientRateLimit | false;
}

/** `controller`, reconciling only the keys of namespaces `serves` accepts (the others are left alone). */
function servingOnly(controller: ControllerSpec, serves: (namespace: string) => boolean): ControllerSpec {
  return {
    ...controller,
    reconcile: (key, context) =>
      key.namespace !== undefined && serves(key.namespace)
        ? controller.reconcile(key, context)
        : Promise.resolve(undefined),
  };
}

/** The pipelines controllers in this process, as `slipway operator` runs them. */
export async function startPipelinesOperator(
  config: KubeConfig,
  options: PipelinesOperatorOptions = {},
): Promise<Manager> {
  const { run, serviceAccounts = [] } = options;
  const outbound = outboundPolicy(options.outbound);
  const events = options.events instanceof EventDispatcher ? options.events : { ...options.events, outbound };
  const manager = new Manager({
    kubeConfig: config,
    fieldManager: "slipway-pipelines",
    ...(options.clientRateLimit === undefined ? {} : { clientRateLimit: options.clientRateLimit }),
    log: pino({ level: process.env.SLIPWAY_TEST_LOG ?? "silent" }),
  });
  // the allowlist alone: without the platform controllers there are no Platforms to own a Provider,
  // and the Platform's own account (platformPipelinesAccount) would hold the Provider controller
  // until the Platform CRD is served
  const policy = allowlistPolicy(serviceAccounts);
  const backends = backendsFor(outbound, { servedNamespaces: options.argoNamespaces ?? ["*"] });
  for (const controller of pipelineControllers({ backends, run, events, serviceAccounts: policy }))
    manager.add(options.serves ? servingOnly(controller, options.serves) : controller);
  await manager.start();
  return manager;
}

const deploymentType: ResourceType = {
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  namespaced: true,
};

/** A Deployment of Argo's workflow-controller image with `args` (default `--namespaced`: it serves its own namespace). */
export function workflowControllerDeployment(
  namespace: string,
  args: string[] = ["--namespaced"],
  name = "workflow-controller",
) {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: "workflow-controller",
              image: `quay.io/argoproj/workflow-controller:${argoVersion}`,
              args,
            },
          ],
        },
      },
    },
  };
}

/**
 * workflowControllerDeployment, available once its pod is Ready — on this control plane's kwok
 * nodes, no process runs in it: it stands for Argo's controller as an operator sees it (its
 * Deployment), and the tests play the controller's part on the Workflows. Resolves when a replica is
 * available.
 */
export async function startWorkflowControllerDeployment(
  api: Api,
  namespace: string,
  args: string[] = ["--namespaced"],
  name = "workflow-controller",
): Promise<void> {
  await api.apply(deploymentType, workflowControllerDeployment(namespace, args, name));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = await api.get<{ status?: { availableReplicas?: number } }>(deploymentType, namespace, name);
    if ((found?.status?.availableReplicas ?? 0) > 0) return;
    if (Date.now() > deadline) throw new Error(`Deployment ${namespace}/${name} has no available replica`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
