/**
 * How the argo backend submits a Run's Workflow, on the real API server with Argo's CRDs: created
 * by a POST (its managedFields an Update by the operator's field manager, no Apply: #34); a Workflow
 * of the Run's name already there (a retry after a lost answer, an operator restarted after its
 * POST) taken over when it is the Run's own, without a write; another's left untouched, the Run
 * Failed naming it. Argo's controller does not run here: the test writes a Workflow's status as it
 * would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { ownerReference } from "../../../src/kube/owners.ts";
import { ownerMetadata } from "../../../src/pipelines/argo/names.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../../support/fakes/pipelines-operator.ts";
import { condition } from "../../support/pipelines-testbed.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

/** The operator's field manager as startPipelinesOperator names it. */
const fieldManager = "slipway-pipelines";

let api: Api;
let operator: Manager;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  operator = await startPipelinesOperator(adminConfig(), {
    serves: isOwnNamespace,
    run: { completionPollSeconds: 1 },
  });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
});

const group = "pipelines.slipway.dev/v1beta1";

const create = (
  type: (typeof types)[keyof typeof types],
  namespace: string,
  kind: string,
  name: string,
  spec: Any,
) => api.create(type, { apiVersion: group, kind, metadata: { name, namespace }, spec });

async function provider(namespace: string) {
  await create(types.provider, namespace, "Provider", "argo", { type: "argo" });
  await eventually(
    "Provider argo Ready",
    () => api.get(types.provider, namespace, "argo"),
    (p) => condition(p, "Ready")?.status === "True",
  );
}

async function pipeline(namespace: string) {
  await create(types.pipeline, namespace, "Pipeline", "train", {
    provider: "argo",
    image: "registry.example/ml/pipeline:1",
    steps: [{ name: "train" }],
  });
  await eventually(
    "Pipeline train Succeeded",
    () => api.get(types.pipeline, namespace, "train"),
    (p: Any) => p?.status?.state === "Succeeded",
  );
}

const runSpec = { provider: "argo", pipeline: "train" };

/** A Workflow someone else wrote (not as Slipway renders a Run's: its own entrypoint and image). */
function otherWorkflow(namespace: string, name: string, metadata: Any = {}) {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Workflow",
    metadata: { name, namespace, ...metadata },
    spec: {
      entrypoint: "main",
      templates: [{ name: "main", container: { image: "registry.example/someone/else:2" } }],
    },
  };
}

const managers = (object: Any) =>
  (object.metadata.managedFields ?? []).map((f: Any) => [f.manager, f.operation, f.subresource ?? ""]);

describe("the argo backend submits a Run's Workflow by create", () => {
  it("a Run's Workflow is created by POST: managedFields an Update by the operator, no Apply", async () => {
    const ns = await testNamespace("argo-submit");
    await provider(ns);
    await pipeline(ns);
    await create(types.run, ns, "Run", "posted", runSpec);
    const run: Any = await eventually(
      "Run posted submitted",
      () => api.get(types.run, ns, "posted"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    expect(run.status.provider.id).toBe(`${ns}.posted`);
    const workflow: Any = await api.get(types.workflow, ns, `${ns}.posted`);
    expect(workflow.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Run", name: "posted", uid: run.metadata.uid, controller: true }),
    ]);
    const operatorEntries = managers(workflow).filter(([manager]: string[]) => manager === fieldManager);
    expect(operatorEntries).toEqual([[fieldManager, "Update", ""]]);
    expect(managers(workflow).some(([, operation]: string[]) => operation === "Apply")).toBe(false);
  });

  it("a Workflow of the Run's name that is the Run's own is taken over unwritten: the Run proceeds on it", async () => {
    const ns = await testNamespace("argo-submit");
    await provider(ns);
    // no Pipeline yet: the Run waits, so its Workflow can be there first, as after a lost answer
    await create(types.run, ns, "Run", "own", runSpec);
    const waiting: Any = await eventually(
      "Run own waiting for its Pipeline",
      () => api.get(types.run, ns, "own"),
      (r: Any) => /Pipeline train does not exist/.test(condition(r, "Synchronized")?.message ?? ""),
    );
    expect(waiting.status.state).toBe("Failed");
    const name = `${ns}.own`;
    const owner = { object: waiting, kind: "Run", namespace: ns, name: "own" };
    const existing: Any = await api.create(
      types.workflow,
      otherWorkflow(ns, name, { ...ownerMetadata(owner), ownerReferences: [ownerReference(waiting)] }),
    );

    await pipeline(ns);
    // A missing Pipeline is a mistake in the Run (Failed, PipelineNotFound), so the Run is Failed
    // until the operator sees the Pipeline: only a state reached after that says how submission went.
    const run: Any = await eventually(
      "Run own submitted",
      () => api.get(types.run, ns, "own"),
      (r: Any) =>
        r?.status?.state === "Succeeded" ||
        (r?.status?.state === "Failed" &&
          !/spec\.pipeline:/.test(condition(r, "Synchronized")?.message ?? "")),
    );
    expect(run.status).toMatchObject({ state: "Succeeded", provider: { id: name } });
    const workflows: Any[] = await api.list(types.workflow, ns);
    expect(workflows.map((w) => w.metadata.name)).toEqual([name]);
    const [kept] = workflows;
    expect(kept.metadata.uid).toBe(existing.metadata.uid);
    expect(kept.metadata.resourceVersion).toBe(existing.metadata.resourceVersion);
    expect(kept.spec.entrypoint).toBe("main");
    expect(managers(kept).some(([manager]: string[]) => manager === fieldManager)).toBe(false);

    // the Run follows the Workflow it took over to completion
    await api.mergePatch(types.workflow, ns, name, {
      status: { phase: "Succeeded", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:01:00Z" },
    });
    const completed: Any = await eventually(
      "Run own completed",
      () => api.get(types.run, ns, "own"),
      (r: Any) => r.status.completionState !== undefined,
    );
    expect(completed.status.completionState).toBe("Succeeded");
  });

  it("a Workflow of the Run's name that is another's is left untouched: the Run Failed, naming it", async () => {
    const ns = await testNamespace("argo-submit");
    await provider(ns);
    await pipeline(ns);
    const name = `${ns}.taken`;
    const stranger: Any = await api.create(
      types.workflow,
      otherWorkflow(ns, name, { labels: { app: "someone" } }),
    );

    await create(types.run, ns, "Run", "taken", runSpec);
    const failed: Any = await eventually(
      "Run taken Failed",
      () => api.get(types.run, ns, "taken"),
      (r: Any) => r?.status?.state === "Failed",
    );
    expect(condition(failed, "Synchronized")).toMatchObject({
      status: "False",
      reason: "Failed",
      message: `create failed (attempt 1): the Workflow ${ns}/${name} exists and is not this Run's (its pipelines.slipway.dev/owner annotation is not set, not "Run/${ns}/taken"): it is left alone; delete or rename it for this Run to start; retrying in 5s`,
    });
    expect(failed.status.provider?.id).toBeUndefined();
    const kept: Any = await api.get(types.workflow, ns, name);
    expect(kept.metadata.uid).toBe(stranger.metadata.uid);
    expect(kept.metadata.resourceVersion).toBe(stranger.metadata.resourceVersion);
    expect(kept.metadata.ownerReferences).toBeUndefined();
    expect(kept.metadata.labels).toEqual({ app: "someone" });
    expect(managers(kept).some(([manager]: string[]) => manager === fieldManager)).toBe(false);
  });
});
