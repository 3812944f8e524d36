import { AppsV1Api, CoreV1Api, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { up } from "./cluster.ts";
import { waitFor } from "./health.ts";

/**
 * The README's demo: brings up the local control plane and shows it working (the pinned version,
 * Ready fake nodes, a Deployment that becomes Available). Leaves it running for `kubectl` to explore.
 */
export async function demo(dir: string, print: (line: string) => void): Promise<void> {
  const started = Date.now();
  const state = await up({ dir, log: print });
  const config = new KubeConfig();
  config.loadFromFile(state.kubeconfig);
  const version = await config.makeApiClient(VersionApi).getCode();
  print(`kube-apiserver ${version.gitVersion} ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  const core = config.makeApiClient(CoreV1Api);
  for (const node of (await core.listNode()).items) {
    const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    print(`node ${node.metadata?.name} ${ready ? "Ready" : "NotReady"}`);
  }
  const namespace = "slipway-demo";
  await core.createNamespace({ body: { metadata: { name: namespace } } }).catch((error) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
  const apps = config.makeApiClient(AppsV1Api);
  const labels = { app: "hello" };
  await apps
    .createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "hello" },
        spec: {
          replicas: 3,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: "hello", image: "nginx:1.27" }] } },
        },
      },
    })
    .catch((error) => {
      if ((error as { code?: number }).code !== 409) throw error;
    });
  await waitFor(
    "deployment slipway-demo/hello",
    async () => {
      const d = await apps.readNamespacedDeployment({ namespace, name: "hello" });
      return {
        ok: d.status?.availableReplicas === 3,
        detail: `${d.status?.availableReplicas ?? 0}/3 available`,
      };
    },
    { timeoutMs: 60_000 },
  );
  print("deployment slipway-demo/hello: 3/3 available");
  print(`\nexport KUBECONFIG=${state.kubeconfig}\nkubectl get pods -A   # then: bin/slipway dev down`);
}
