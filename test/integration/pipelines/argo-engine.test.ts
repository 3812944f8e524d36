/**
 * An argo Provider tells the truth about Argo's engine, on the real control plane: Ready only where a
 * workflow controller serves the namespace its Workflows are created in (the operator lists the
 * Deployments there; this control plane's kwok nodes run no process in them, so the test plays the
 * controller's part on the Workflows), and a Run that cannot start says why in its conditions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import {
  Api,
  installArgoCrds,
  startPipelinesOperator,
  startWorkflowControllerDeployment,
} from "../../support/fakes/pipelines-operator.ts";

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
    run: { completionPollSeconds: 1 },
    argoNamespaces: [],
  });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
});

const group = "pipelines.slipway.dev/v1alpha1";
const condition = (object: Any, type: string) =>
  object?.status?.conditions?.find((c: Any) => c.type === type);

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
