/**
 * The server benchmark's server: `slipway server`'s app (buildServer) for the Platform NAMESPACE/slipway,
 * in its own process on loopback, as a deployment runs it — so the bench's clients do not share its
 * event loop. Started with an IPC channel (child_process.fork); sends `{ url }` once it listens, and
 * answers every `"cpu"` message with its CPU microseconds so far (`{ user, system }`).
 * With WEBROOT (a built UI), serves the UI too.
 *   node bench/server/child.ts KUBECONFIG NAMESPACE [WEBROOT]
 */
import { KubeConfig } from "@kubernetes/client-node";
import { releaseCatalog } from "../../src/platform/version-change.ts";
import { buildServer } from "../../src/server/app.ts";

const [kubeconfig, namespace, webRoot] = process.argv.slice(2);
if (!kubeconfig || !namespace || !process.send) {
  process.stderr.write(
    "usage: fork bench/server/child.ts KUBECONFIG NAMESPACE [WEBROOT] (with an IPC channel)\n",
  );
  process.exit(2);
}
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig);
const app = await buildServer({
  kubeConfig,
  platform: { namespace, name: "slipway" },
  releases: releaseCatalog,
  logLevel: "silent",
  ...(webRoot ? { webRoot } : {}),
});
const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.on("message", (message) => {
  if (message === "cpu") process.send?.(process.cpuUsage());
});
process.on("disconnect", () => {
  void app.close().then(() => process.exit(0));
});
process.send({ url });
