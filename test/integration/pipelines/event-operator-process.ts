/**
 * The pipelines operator as a process of its own, so a test can SIGKILL it: `node this.ts KUBECONFIG NAMESPACE`
 * (it reconciles that namespace's objects only)
 * with the operator's events configuration in $SLIPWAY_EVENTS_CONFIG (as `slipway operator` reads it)
 * and completions polled every second. Prints `ready` once its controllers run, then its Run
 * controller's activity (test/support/reconciles.ts) as `activity {…}` lines, every 100 ms.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { eventsConfigFromEnvironment } from "../../../src/pipelines/events/config.ts";
import { startPipelinesOperator } from "../../support/fakes/pipelines-operator.ts";
import { activityOf } from "../../support/reconciles.ts";

const config = new KubeConfig();
config.loadFromFile(process.argv[2] ?? "");
const served = process.argv[3];
const operator = await startPipelinesOperator(config, {
  serves: (namespace) => namespace === served,
  // its sinks listen on 127.0.0.1: the operator's outbound policy must allow it (SLIPWAY_OUTBOUND_ALLOW)
  outbound: { allow: ["127.0.0.1"] },
  run: { completionPollSeconds: 1, defaultTtlSeconds: 3600 },
  events: eventsConfigFromEnvironment(),
});
process.stdout.write("ready\n");
setInterval(async () => {
  process.stdout.write(`activity ${JSON.stringify(await activityOf(operator, ["run"]))}\n`);
}, 100).unref();
process.once("SIGTERM", () => void operator.stop().then(() => process.exit(0)));
