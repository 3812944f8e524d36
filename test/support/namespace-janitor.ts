/**
 * Releases the test namespaces that the namespace controller cannot finish. A file's operator stops
 * when the file ends, while the namespaces its tests made (testNamespace, labelled
 * `slipway.dev/test=true`) are still being deleted: a Platform, Component, ImageBuild or Run there keeps
 * the finalizer only that operator removes, and the namespace stays Terminating for the rest of the run.
 * The namespace controller sweeps each such namespace again about every ten seconds, a list and a
 * delete of every namespaced type (about 100 requests): with the 48 a full run left, 470 requests a
 * second, 1.2 of the machine's 2 cores, for the rest of the run.
 *
 * So the run's global setup clears the finalizers of what is left in a test namespace that has been
 * Terminating for `graceMs` (longer than any operator takes to process them while it runs) and whose
 * controller reports finalizers remaining. Namespaces the tests did not label (those `slipway install`
 * creates, whose finalizer handling the uninstall tests check) are never touched.
 */
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Namespace,
} from "@kubernetes/client-node";

export const testNamespaceLabel = "slipway.dev/test";

/**
 * The custom resources (`plural.group`) whose objects hold the finalizers keeping `namespace` from
 * going, once it has been Terminating for `graceMs` at `nowMs`; none for a namespace the tests did not
 * label, one still within the grace, or one whose controller reports no finalizers remaining. Read from
 * the namespace controller's conditions (NamespaceFinalizersRemaining, NamespaceContentRemaining:
 * "Some resources are remaining: components.platform.slipway.dev has 7 resource instances, …"). Pure.
 */
export function stuckResources(namespace: V1Namespace, nowMs: number, graceMs: number): string[] {
  const { labels, deletionTimestamp } = namespace.metadata ?? {};
  if (labels?.[testNamespaceLabel] !== "true" || !deletionTimestamp) return [];
  if (nowMs - new Date(deletionTimestamp).getTime() < graceMs) return [];
  const conditions = namespace.status?.conditions ?? [];
  const holding = conditions.some((c) => c.type === "NamespaceFinalizersRemaining" && c.status === "True");
  const remaining = conditions.find((c) => c.type === "NamespaceContentRemaining" && c.status === "True");
  if (!holding || !remaining?.message) return [];
  return [...remaining.message.matchAll(/([a-z0-9-]+\.[a-z0-9.-]+) has \d+ resource instances/g)].map(
    ([, resource]) => resource ?? "",
  );
}

interface Stored {
  metadata?: { name?: string; finalizers?: string[]; deletionTimestamp?: string };
}

/** Clears the finalizers of the objects being deleted in the test namespaces stuck for `graceMs`; how many. */
export async function releaseStuckNamespaces(config: KubeConfig, graceMs: number): Promise<number> {
  const core = config.makeApiClient(CoreV1Api);
  const crds = config.makeApiClient(ApiextensionsV1Api);
  const objects = config.makeApiClient(CustomObjectsApi);
  const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
  const namespaces = await core.listNamespace({ labelSelector: `${testNamespaceLabel}=true` });
  let released = 0;
  for (const namespace of namespaces.items) {
    for (const resource of stuckResources(namespace, Date.now(), graceMs)) {
      const crd = await crds.readCustomResourceDefinition({ name: resource }).catch(() => undefined);
      const version = crd?.spec.versions.find((v) => v.storage)?.name;
      if (!crd || !version) continue;
      const coordinates = {
        group: crd.spec.group,
        version,
        plural: crd.spec.names.plural,
        namespace: namespace.metadata?.name ?? "",
      };
      const list = (await objects.listNamespacedCustomObject(coordinates)) as { items: Stored[] };
      for (const object of list.items) {
        const { name = "", finalizers, deletionTimestamp } = object.metadata ?? {};
        if (!deletionTimestamp || !finalizers?.length) continue;
        await objects
          .patchNamespacedCustomObject(
            { ...coordinates, name, body: { metadata: { finalizers: null } } },
            merge,
          )
          .then(() => released++)
          .catch((error: unknown) => {
            // gone meanwhile; anything else fails the pass (the next one tries again)
            if ((error as { code?: number }).code !== 404) throw error;
          });
      }
    }
  }
  return released;
}

/** Runs releaseStuckNamespaces every `intervalMs` until the returned stop; stop resolves with the total released. */
export function startNamespaceJanitor(
  kubeconfig: string,
  { intervalMs = 5_000, graceMs = 30_000 } = {},
): () => Promise<number> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  let total = 0;
  let pass: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (pass) return; // one pass at a time
    pass = releaseStuckNamespaces(config, graceMs)
      .then(
        (released) => {
          total += released;
        },
        () => {}, // the plane is stopping, or answered once with an error: the next pass tries again
      )
      .finally(() => {
        pass = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await pass;
    return total;
  };
}
