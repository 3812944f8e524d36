/**
 * The ImageBuild controller of a release as a process of its own, so a test can replace it:
 * `node this.ts RELEASE_DIR KUBECONFIG NAMESPACE CONFIG_JSON` runs RELEASE_DIR's sources (this
 * tree's, or the previous release's: test/support/previous-release.ts) serving NAMESPACE. Prints
 * `ready` once its controller runs; stops on SIGTERM.
 */
import { join } from "node:path";
import pino from "pino";

const [release = "", kubeconfig = "", namespace = "", config = "{}"] = process.argv.slice(2);
const load = (path: string) => import(join(release, path));
const { parseBuildsConfig } = await load("src/builds/config.ts");
const { imageBuildController } = await load("src/builds/controller.ts");
const { Manager } = await load("src/kube/manager.ts");
const { loadClusterAccess } = await load("src/kube/kubeconfig.ts");

const manager = new Manager({
  kubeConfig: await loadClusterAccess({ kubeconfig }),
  namespace,
  fieldManager: "slipway-operator",
  log: pino({ level: "warn" }),
});
manager.add(imageBuildController({ config: parseBuildsConfig(JSON.parse(config)), devMode: false }));
await manager.start();
process.stdout.write("ready\n");
process.once("SIGTERM", () => void manager.stop().then(() => process.exit(0)));
