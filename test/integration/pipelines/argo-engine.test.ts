/**
 * An argo Provider tells the truth about Argo's engine, on the real control plane: Ready only where a
 * workflow controller serves the namespace its Workflows are created in (the operator lists the
 * Deployments there; this control plane's kwok nodes run no process in them, so the test plays the
 * controller's part on the Workflows), and a Run that cannot start says why in its conditions; a
 * Run's status lists its steps from the Workflow's node statuses as they change (the operator watches
 * Workflows: nothing is polled), and a failed one names its step — in the Run and in the REST API's
 * view of it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { argoBackendFor, argoCrdNames } from "../../../src/pipelines/argo/backend.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import {
  Api,
  installArgoCrds,
  startPipelinesOperator,
  startWorkflowControllerDeployment,
} from "../../support/fakes/pipelines-operator.ts";
import { condition } from "../../support/pipelines-testbed.ts";
import { grantRole } from "../../support/service-account.ts";
import { serviceAccountToken, startServer } from "../server/server.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

let api: Api;
let operator: Manager;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  // no SLIPWAY_ARGO_NAMESPACES: only a controller found in a Provider's namespace serves it
  operator = await startPipelinesOperator(adminConfig(), {
    serves: isOwnNamespace,
    // polled hourly: every change of a Workflow below reaches its Run through the operator's watch
    run: { completionPollSeconds: 3600 },
    argoNamespaces: [],
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

const pipelineSpec = {
  provider: "argo",
  image: "registry.example/ml/pipeline:1",
  steps: [{ name: "prepare" }, { name: "train", dependsOn: ["prepare"] }],
};

describe("an argo Provider is Ready only where a workflow controller serves its namespace", () => {
  it("not Ready (naming the namespace) under a controller serving elsewhere, its Run saying why; Ready once one serves it, and the Run starts", async () => {
    const ns = await testNamespace("argo-engine");
    // Argo's controller in this namespace, but --namespaced to another one
    await startWorkflowControllerDeployment(api, ns, ["--namespaced", "--managed-namespace", "elsewhere"]);
    await create(types.provider, ns, "Provider", "argo", { type: "argo" });
    const provider: Any = await eventually(
      "Provider argo evaluated",
      () => api.get(types.provider, ns, "argo"),
      (p: Any) => condition(p, "Ready") !== undefined,
    );
    expect(condition(provider, "Ready")).toMatchObject({ status: "False", reason: "BackendUnavailable" });
    expect(condition(provider, "Ready").message).toContain(
      `no Argo workflow controller serves namespace ${ns}, where this Provider's Workflows are created (${ns}/workflow-controller serves only elsewhere)`,
    );

    await create(types.pipeline, ns, "Pipeline", "train", pipelineSpec);
    await create(types.run, ns, "Run", "once", { provider: "argo", pipeline: "train" });
    const waiting: Any = await eventually(
      "the Run waiting for its Provider",
      () => api.get(types.run, ns, "once"),
      (r: Any) => condition(r, "ProviderAccepted")?.reason === "ProviderNotReady",
    );
    expect(condition(waiting, "ProviderAccepted")).toMatchObject({ status: "False" });
    expect(condition(waiting, "ProviderAccepted").message).toContain(
      `spec.provider: Provider ${ns}/argo is not Ready: no Argo workflow controller serves namespace ${ns}`,
    );
    expect(condition(waiting, "Synchronized")?.status).not.toBe("True");
    // (a read, not a wait: the list may meet the CRD's storage still initializing, a 429, and is asked again)
    expect(
      await eventually(
        "the Workflows",
        () => api.list(types.workflow, ns),
        () => true,
      ),
    ).toEqual([]);

    // the controller now serves this namespace: the Provider (looked at again within 30 s) is Ready
    await startWorkflowControllerDeployment(api, ns, ["--namespaced"]);
    const ready: Any = await eventually(
      "Provider argo Ready",
      () => api.get(types.provider, ns, "argo"),
      (p: Any) => condition(p, "Ready")?.status === "True",
      60_000,
    );
    expect(condition(ready, "Ready").message).toBe(
      `Argo Workflows is installed; the workflow controller ${ns}/workflow-controller serves namespace ${ns}`,
    );
    const started: Any = await eventually(
      "the Run's Workflow created",
      () => api.get(types.run, ns, "once"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    expect(await api.get(types.workflow, ns, started.status.provider.id)).toBeDefined();
  });
});

/** A step's node as Argo's controller records it in the Workflow's status (a DAG task's Pod node). */
function podNode(workflow: string, step: string, fields: Any) {
  const id = `${workflow}-${step.length}${step.charCodeAt(0)}`;
  return {
    [id]: {
      id,
      name: `${workflow}.${step}`,
      displayName: step,
      type: "Pod",
      templateName: `step-${step}`,
      templateScope: `local/${workflow}`,
      boundaryID: workflow,
      ...fields,
    },
  };
}

describe("a Run's steps, from Argo's record of its Workflow", () => {
  it("lists each step while it runs and when it fails (phase, times, exit code, message), names the failing step, and the REST API serves them", async () => {
    const ns = await testNamespace("argo-steps");
    await startWorkflowControllerDeployment(api, ns);
    await create(types.provider, ns, "Provider", "argo", { type: "argo" });
    await create(types.pipeline, ns, "Pipeline", "train", pipelineSpec);
    await create(types.run, ns, "Run", "once", { provider: "argo", pipeline: "train" });
    const submitted: Any = await eventually(
      "the Run's Workflow created",
      () => api.get(types.run, ns, "once"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    const workflow = submitted.status.provider.id;
    const dag = {
      [workflow]: {
        id: workflow,
        name: workflow,
        displayName: workflow,
        type: "DAG",
        templateName: "pipeline",
        phase: "Running",
      },
    };
    const prepare = {
      phase: "Succeeded",
      startedAt: "2026-03-01T10:00:00Z",
      finishedAt: "2026-03-01T10:00:30Z",
      outputs: { exitCode: "0" },
    };
    // the test writes the status as Argo's controller would: prepare done, train running
    await api.mergePatch(types.workflow, ns, workflow, {
      status: {
        phase: "Running",
        startedAt: "2026-03-01T10:00:00Z",
        nodes: {
          ...dag,
          ...podNode(workflow, "prepare", prepare),
          ...podNode(workflow, "train", { phase: "Running", startedAt: "2026-03-01T10:00:35Z" }),
        },
      },
    });
    const running: Any = await eventually(
      "the Run's steps so far",
      () => api.get(types.run, ns, "once"),
      (r: Any) => r?.status?.steps?.length === 2,
    );
    expect(running.status.steps).toEqual([
      {
        name: "prepare",
        phase: "Succeeded",
        startedAt: "2026-03-01T10:00:00Z",
        finishedAt: "2026-03-01T10:00:30Z",
        exitCode: 0,
      },
      { name: "train", phase: "Running", startedAt: "2026-03-01T10:00:35Z" },
    ]);
    expect(running.status.completionState).toBeUndefined();

    await api.mergePatch(types.workflow, ns, workflow, {
      status: {
        phase: "Failed",
        finishedAt: "2026-03-01T10:01:05Z",
        message: "child failed",
        nodes: {
          ...podNode(workflow, "train", {
            phase: "Failed",
            finishedAt: "2026-03-01T10:01:02Z",
            message: "Error (exit code 3)",
            outputs: { exitCode: "3" },
          }),
        },
      },
    });
    const failed: Any = await eventually(
      "the Run failed",
      () => api.get(types.run, ns, "once"),
      (r: Any) => r?.status?.completionState !== undefined,
    );
    const steps = [
      {
        name: "prepare",
        phase: "Succeeded",
        startedAt: "2026-03-01T10:00:00Z",
        finishedAt: "2026-03-01T10:00:30Z",
        exitCode: 0,
      },
      {
        name: "train",
        phase: "Failed",
        startedAt: "2026-03-01T10:00:35Z",
        finishedAt: "2026-03-01T10:01:02Z",
        exitCode: 3,
        message: "Error (exit code 3)",
      },
    ];
    expect(failed.status).toMatchObject({
      completionState: "Failed",
      steps,
      failure: "step train failed: Error (exit code 3)",
    });

    // the REST API's Run, as a caller allowed to read runs
    const url = await startServer(ns);
    const token = await serviceAccountToken(ns, "viewer");
    await grantRole(ns, "viewer", "viewer-runs", [
      { apiGroups: ["pipelines.slipway.dev"], resources: ["runs"], verbs: ["get", "list"] },
    ]);
    const response = await fetch(`${url}/api/v1/namespaces/${ns}/runs/once`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const view = (await response.json()) as Any;
    expect(view.status).toMatchObject({ steps, failure: "step train failed: Error (exit code 3)" });
  });
});

describe("whether the API server serves Argo's kinds: one answer for every argo Provider", () => {
  it("50 Providers looked at together read each of Argo's CRDs once; another within the answer's life reads none", async () => {
    let gets = 0;
    const rest = new RestClient(adminConfig(), {
      onRequest: (_code, method) => {
        if (method === "GET") gets++;
      },
    });
    const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "argo-served-test" });
    try {
      const plugin = argoBackendFor({ servedNamespaces: ["*"] });
      const provider = (name: string) => ({
        key: { namespace: "ml", name },
        spec: { type: "argo" as const },
        version: "v1",
      });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => plugin.create(client).readiness(provider(`p${i}`))),
      );
      expect(answers.filter((answer) => answer.ready)).toHaveLength(50);
      expect(gets).toBe(argoCrdNames.length);
      expect((await plugin.create(client).readiness(provider("later"))).ready).toBe(true);
      expect(gets).toBe(argoCrdNames.length);
    } finally {
      rest.close();
    }
  });
});
