/**
 * A lean operator process for the crash-safety test: the runtime's Manager with only the platform
 * controllers (what `slipway operator` runs for them, without loading every other capability), so
 * that many restarts stay fast. Usage: node platform-operator.ts <kubeconfig> <namespace>
 */
import { KubeConfig } from "@kubernetes/client-node";
import pino from "pino";
import { Manager } from "../../../src/kube/manager.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";

const [kubeconfig, namespace] = process.argv.slice(2);
if (!kubeconfig || !namespace) throw new Error("usage: platform-operator.ts <kubeconfig> <namespace>");
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig);
const manager = new Manager({ kubeConfig, namespace, fieldManager: "slipway-operator", log: pino() });
for (const controller of platformControllers()) manager.add(controller);
await manager.start();
