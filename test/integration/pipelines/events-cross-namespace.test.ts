/**
 * A RunConfiguration triggered by a completion in another namespace: `triggers.runConfigurations:
 * [namespace/name]` fires when the source's run succeeds, if the Provider that runs the source allows
 * the namespace (its allowedNamespaces); a namespace it does not allow is refused with a condition
 * saying why, and is triggered once the Provider allows it. Argo's controller does not run here: the
 * test writes the Workflow's final status as it would.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../../support/fakes/pipelines-operator.ts";
import { createPipeline, createProvider, finishWorkflow, group } from "./event-support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

let api: Api;
let operator: Manager;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  operator = await startPipelinesOperator(adminConfig(), {
    serves: isOwnNamespace,
    // its sinks listen on 127.0.0.1: the operator's outbound policy must allow it (SLIPWAY_OUTBOUND_ALLOW)
    outbound: { allow: ["127.0.0.1"] },
    run: { defaultTtlSeconds: 3600, completionPollSeconds: 1 },
  });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
});

const triggersAllowed = (object: Any) =>
  object?.status?.conditions?.find((c: Any) => c.type === "TriggersAllowed");

async function runConfiguration(namespace: string, name: string, spec: Record<string, unknown>) {
  await api.create(types.runConfiguration, {
    apiVersion: group,
    kind: "RunConfiguration",
    metadata: { name, namespace },
    spec: { provider: "argo", run: { pipeline: "train" }, ...spec },
  });
}

/** A namespace with its own Provider and Pipeline, and a RunConfiguration `deploy` triggered by `source`. */
async function consumer(source: string): Promise<string> {
  const namespace = await testNamespace("evx");
  await createProvider(api, namespace);
  await createPipeline(api, namespace, "train");
  await runConfiguration(namespace, "deploy", { triggers: { runConfigurations: [source] } });
  return namespace;
}

const runsOf = (namespace: string) => api.list<Any>(types.run, namespace);

it("another namespace's completion triggers a RunConfiguration its Provider allows; a refused one says why, and fires once allowed", async () => {
  const data = await testNamespace("evx");
  const team = await consumer(`${data}/training`);
  const other = await consumer(`${data}/training`);
  await createProvider(api, data, { allowedNamespaces: [team] });
  await createPipeline(api, data, "train");
  await runConfiguration(data, "training", { triggers: { onChange: ["runSpec"] } });

  const [training] = await eventually(
    "the training Run synchronized",
    () => runsOf(data),
    (l) => l.length === 1 && l[0].status?.state === "Succeeded",
  );
  await finishWorkflow(api, data, training.status.provider.id, "Succeeded");

  const [teamRun] = await eventually(
    "team's deploy Run created",
    () => runsOf(team),
    (l) => l.length === 1,
  );
  expect(teamRun.metadata.ownerReferences[0]).toMatchObject({ kind: "RunConfiguration", name: "deploy" });
  // the Run is created before the RunConfiguration's status records the trigger (a separate write)
  const teamDeploy: Any = await eventually(
    "team's deploy records what triggered it",
    () => api.get(types.runConfiguration, team, "deploy"),
    (c: Any) => c.status?.triggers?.runConfigurations !== undefined,
  );
  expect(teamDeploy.status.triggers.runConfigurations).toEqual({
    [`${data}/training`]: training.metadata.name,
  });
  expect(triggersAllowed(teamDeploy)).toMatchObject({ status: "True", reason: "Allowed" });

  const refused: Any = await eventually(
    "the other namespace's deploy refused",
    () => api.get(types.runConfiguration, other, "deploy"),
    (c) => triggersAllowed(c)?.status === "False",
  );
  expect(triggersAllowed(refused)).toMatchObject({
    reason: "SourceNotAllowed",
    message: `spec.triggers.runConfigurations: RunConfiguration ${data}/training runs on Provider ${data}/argo, which does not allow namespace ${other} (its spec.allowedNamespaces: ${team}): its runs do not trigger this one`,
  });
  expect(refused.status.triggers?.runConfigurations).toBeUndefined();
  expect(await runsOf(other)).toEqual([]);

  // allowing the namespace reaches the refused RunConfiguration (a Provider change re-reconciles it)
  await api.mergePatch(types.provider, data, "argo", { spec: { allowedNamespaces: [team, other] } });
  await eventually(
    "the other namespace's deploy Run created once allowed",
    () => runsOf(other),
    (l) => l.length === 1,
  );
  // the Run is created before the RunConfiguration's status says why (a separate write)
  const allowed: Any = await eventually(
    "the other namespace's deploy says it is allowed",
    () => api.get(types.runConfiguration, other, "deploy"),
    (c) => triggersAllowed(c)?.status === "True",
  );
  expect(triggersAllowed(allowed)).toMatchObject({ status: "True", reason: "Allowed" });
  expect(await runsOf(team)).toHaveLength(1); // the team's deploy is not triggered again
});
