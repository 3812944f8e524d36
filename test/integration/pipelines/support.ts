/** Shared by the pipelines integration tests (the operator and the Argo CRDs: test/support/fakes/pipelines-operator.ts). */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import type { Api, Obj } from "../../support/fakes/pipelines-operator.ts";

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
