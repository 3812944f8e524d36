/** Shared by the pipelines integration tests and bench/pipelines.ts: Argo CRDs, the operator, a REST helper. */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { KubeConfig } from "@kubernetes/client-node";
import pino from "pino";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { isNotFound, RestClient } from "../../../src/kube/rest.ts";
import type { KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { argoCrds, argoVersion } from "../../../src/pipelines/argo/crds.ts";
import { backends } from "../../../src/pipelines/backends.ts";
import { pipelineControllers } from "../../../src/pipelines/controllers/index.ts";
import type { RunOptions } from "../../../src/pipelines/controllers/run.ts";

const crdType: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  namespaced: false,
};
const versionLabel = "slipway.dev/argo-crds";

type Obj = KubeObject & Record<string, unknown>;

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
  for (const crd of await argoCrds()) {
    const name = (crd.metadata as { name: string }).name;
    const existing = await api.get<Obj & { status?: { conditions?: { type: string; status: string }[] } }>(
      crdType,
      undefined,
      name,
    );
    const established = existing?.status?.conditions?.some(
      (c) => c.type === "Established" && c.status === "True",
    );
    if (established && existing?.metadata?.labels?.[versionLabel] === argoVersion) continue;
    const metadata = crd.metadata as { labels?: Record<string, string> };
    await api.apply(crdType, {
      ...crd,
      metadata: { ...metadata, labels: { ...metadata.labels, [versionLabel]: argoVersion } },
    });
  }
  const deadline = Date.now() + 60_000;
  for (const name of ["workflowtemplates", "workflows", "cronworkflows"].map((p) => `${p}.argoproj.io`)) {
    for (;;) {
      const crd = await api.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
        crdType,
        undefined,
        name,
      );
      if (crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The pipelines controllers in this process, as `slipway operator` runs them. */
export async function startPipelinesOperator(config: KubeConfig, run?: RunOptions): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: config,
    fieldManager: "slipway-pipelines",
    log: pino({ level: process.env.SLIPWAY_TEST_LOG ?? "silent" }),
  });
  for (const controller of pipelineControllers({ backends, run })) manager.add(controller);
  await manager.start();
  return manager;
}

const exec = promisify(execFile);

/** Provider resources as the chart renders them from `values.providers` (real helm, `helm template`). */
export async function renderProviders(namespace: string, providers: Record<string, unknown>): Promise<Obj[]> {
  const { parseAllDocuments } = await import("yaml");
  const values = join(tmpdir(), `slipway-providers-${process.pid}-${Date.now()}.json`);
  await writeFile(values, JSON.stringify({ providers }));
  const { stdout } = await exec(binaryPaths().helm, [
    "template",
    "slipway",
    join(packageRoot, "deploy/helm/slipway"),
    "--namespace",
    namespace,
    "--values",
    values,
    "--show-only",
    "templates/providers.yaml",
  ]);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJSON() as Obj | null)
    .filter((doc): doc is Obj => doc !== null);
}

const configMapsPath = (namespace: string) => `/api/v1/namespaces/${namespace}/configmaps`;

/** Kubernetes itself publishes `kube-root-ca.crt` in every namespace (the root CA for service accounts). */
const publishedByKubernetes = "kube-root-ca.crt";

export interface ConfigMapWatch {
  /** Stops watching; every ConfigMap seen (watched, or listed now), or the watch's error. */
  stop(): Promise<string[]>;
}

/**
 * Records every ConfigMap created in `namespaces` from now on, except `kube-root-ca.crt`. Each
 * namespace is listed first and watched from the list's resourceVersion, so nothing created between
 * the two is missed; a watch that fails or is closed early is an error of stop(), which also lists
 * the namespaces again (a ConfigMap the watch somehow missed is still reported).
 */
export async function watchConfigMaps(api: Api, namespaces: string[]): Promise<ConfigMapWatch> {
  const seen = new Set<string>();
  const errors: string[] = [];
  const abort = new AbortController();
  const record = (namespace: string, name: string | undefined) => {
    if (name && name !== publishedByKubernetes) seen.add(`${namespace}/${name}`);
  };
  const listed = async (namespace: string) => {
    const list = await api.rest.request<{ metadata: { resourceVersion: string }; items: KubeObject[] }>(
      "GET",
      configMapsPath(namespace),
    );
    for (const item of list.items) record(namespace, item.metadata?.name);
    return list.metadata.resourceVersion;
  };
  const watch = (namespace: string, resourceVersion: string) =>
    api.rest
      .watch(
        configMapsPath(namespace),
        { resourceVersion },
        (event) => {
          if (event.type === "ERROR") errors.push(`${namespace}: ${JSON.stringify(event.object)}`);
          else record(namespace, (event.object as KubeObject).metadata?.name);
        },
        abort.signal,
      )
      .then(
        () => {
          if (!abort.signal.aborted) errors.push(`${namespace}: the watch ended before stop()`);
        },
        (error: unknown) => {
          if (!abort.signal.aborted) errors.push(`${namespace}: ${String(error)}`);
        },
      );
  // listed first, all of them; the watches run until stop() (not awaited here)
  const versions = await Promise.all(namespaces.map(listed));
  const watches = namespaces.map((namespace, i) => watch(namespace, versions[i] ?? ""));
  return {
    async stop() {
      abort.abort();
      await Promise.all(watches);
      for (const namespace of namespaces) await listed(namespace);
      if (errors.length) throw new Error(`watching ConfigMaps failed: ${errors.join("; ")}`);
      return [...seen].sort();
    },
  };
}
