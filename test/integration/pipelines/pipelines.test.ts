/**
 * The pipelines controllers on the real control plane with Argo's CRDs: Argo's workflow-controller
 * does not run here (see docs/pipelines.md), so where a run finishes the test writes the Workflow's
 * status as Argo's controller would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { providerFilePath } from "../../../src/pipelines/argo/workflow.ts";
import {
  cronWorkflowType,
  finalizer,
  pipelineType,
  providerType,
  runConfigurationType,
  runScheduleType,
  runType,
  workflowTemplateType,
  workflowType,
} from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, renderProviders, startPipelinesOperator, watchConfigMaps } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

let api: Api;
let operator: Manager;
let configMaps: ReturnType<typeof watchConfigMaps> | undefined;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  operator = await startPipelinesOperator(adminConfig(), { defaultTtlSeconds: 3600 });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
});

const group = "pipelines.slipway.dev/v1alpha1";
const condition = (object: Any, type: string) =>
  object?.status?.conditions?.find((c: Any) => c.type === type);

/** Namespaces for one test, watched for ConfigMaps from the start; the test ends by checking none appeared. */
async function namespaces(count: number): Promise<string[]> {
  const names = await Promise.all(Array.from({ length: count }, () => testNamespace("pl")));
  configMaps = watchConfigMaps(api, names);
  return names;
}

function expectNoConfigMaps() {
  configMaps?.stop();
  expect(configMaps?.seen).toEqual([]);
}

async function helmProvider(namespace: string, spec: Record<string, unknown>, name = "argo") {
  const [provider] = await renderProviders(namespace, { [name]: spec });
  expect(provider?.kind).toBe("Provider");
  await api.create(providerType, provider as Any);
  return eventually(
    `Provider ${name} Ready`,
    () => api.get(providerType, namespace, name),
    (p) => condition(p, "Ready")?.status === "True",
  );
}

const pipelineSpec = (provider: string, trainArgs = ["--epochs=1"]) => ({
  provider,
  image: "registry.example/ml/pipeline:1",
  parameters: [{ name: "dataset", default: "s3://data/default" }],
  env: [{ name: "STAGE", value: "test" }],
  steps: [
    { name: "prepare", args: ["--dataset={{workflow.parameters.dataset}}"] },
    { name: "train", args: trainArgs, dependsOn: ["prepare"] },
  ],
});

async function createPipeline(namespace: string, name: string, provider: string, trainArgs?: string[]) {
  await api.create(pipelineType, {
    apiVersion: group,
    kind: "Pipeline",
    metadata: { name, namespace },
    spec: pipelineSpec(provider, trainArgs),
  });
  return eventually(
    `Pipeline ${name} Succeeded`,
    () => api.get(pipelineType, namespace, name),
    (p: Any) => p?.status?.state === "Succeeded" && condition(p, "Synchronized")?.status === "True",
  );
}

describe("pipelines on the argo backend", () => {
  it("Provider from Helm values → Ready; Pipeline → WorkflowTemplate; a step edit → new version; delete → template and finalizer gone", async () => {
    const [providerNs = "", ns = ""] = await namespaces(2);
    await helmProvider(providerNs, { type: "argo", serviceAccount: "runner", allowedNamespaces: [ns] });
    const provider = `${providerNs}/argo`;

    const synced: Any = await createPipeline(ns, "train", provider);
    expect(synced.status.provider).toMatchObject({ name: provider, id: `${ns}.train` });
    expect(synced.status.version).toMatch(/^[0-9a-f]{12}$/);
    expect(synced.metadata.finalizers).toContain(finalizer);
    expect(condition(synced, "Synchronized")).toMatchObject({ reason: "Succeeded", observedGeneration: 1 });

    const template: Any = await api.get(workflowTemplateType, providerNs, `${ns}.train`);
    expect(template.metadata.labels).toMatchObject({
      "pipelines.slipway.dev/kind": "Pipeline",
      "pipelines.slipway.dev/namespace": ns,
      "pipelines.slipway.dev/name": "train",
      "pipelines.slipway.dev/version": synced.status.version,
    });
    const dag = template.spec.templates.find((t: Any) => t.name === "pipeline").dag.tasks;
    expect(dag).toEqual([
      { name: "prepare", template: "step-prepare" },
      { name: "train", template: "step-train", dependencies: ["prepare"] },
    ]);
    const train = template.spec.templates.find((t: Any) => t.name === "step-train");
    expect(train.container).toMatchObject({ image: "registry.example/ml/pipeline:1", args: ["--epochs=1"] });
    const providerArtifact = train.inputs.artifacts.find((a: Any) => a.path === providerFilePath);
    expect(JSON.parse(providerArtifact.raw.data)).toMatchObject({
      provider,
      type: "argo",
      serviceAccount: "runner",
    });
    expect(template.spec.serviceAccountName).toBe("runner");

    const events = await eventually(
      "Events for the Pipeline's transitions",
      () =>
        api.list(
          { group: "events.k8s.io", version: "v1", kind: "Event", plural: "events", namespaced: true },
          ns,
        ),
      (list: Any[]) =>
        ["Creating", "Succeeded"].every((r) =>
          list.some((e) => e.regarding?.name === "train" && e.reason === r),
        ),
    );
    expect(events.length).toBeGreaterThan(0);

    await api.mergePatch(pipelineType, ns, "train", {
      spec: { steps: pipelineSpec(provider, ["--epochs=5"]).steps },
    });
    const updated: Any = await eventually(
      "Pipeline re-synchronized at a new version",
      () => api.get(pipelineType, ns, "train"),
      (p: Any) => p.status.observedGeneration === 2 && p.status.state === "Succeeded",
    );
    expect(updated.status.version).not.toBe(synced.status.version);
    const edited: Any = await api.get(workflowTemplateType, providerNs, `${ns}.train`);
    expect(edited.metadata.labels["pipelines.slipway.dev/version"]).toBe(updated.status.version);
    expect(edited.spec.templates.find((t: Any) => t.name === "step-train").container.args).toEqual([
      "--epochs=5",
    ]);

    await api.delete(pipelineType, ns, "train");
    await eventually(
      "Pipeline and its WorkflowTemplate deleted",
      async () => [
        await api.get(pipelineType, ns, "train"),
        await api.get(workflowTemplateType, providerNs, `${ns}.train`),
      ],
      ([pipeline, template]) => pipeline === undefined && template === undefined,
    );
    expectNoConfigMaps();
  });
});
