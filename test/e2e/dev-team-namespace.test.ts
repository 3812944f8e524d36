/**
 * What `make demo` sets up (`slipway dev up`, then `slipway install --dev`), on a control plane of
 * its own: a team creates a Provider and a Pipeline in a namespace of its own, with no other
 * command, and the Pipeline is Synchronized with a WorkflowTemplate. It needs the workflow
 * engine's CRDs installed with the platform and an operator serving every namespace.
 */
import { KubeConfig, KubernetesObjectApi } from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { demoReleases } from "../../src/dev/demo.ts";
import { privateDev, slipway } from "../support/cli.ts";
import { eventually } from "../support/cluster.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;
const pipelines = "pipelines.slipway.dev/v1alpha1";
const condition = (object: Any, type: string) =>
  object?.status?.conditions?.find((c: Any) => c.type === type);

describe("the demo's set-up serves a team namespace", () => {
  it("a Provider and a Pipeline in a new namespace reach Synchronized with a WorkflowTemplate", {
    timeout: 600_000,
  }, async () => {
    const { dev } = await privateDev("slipway-team-");
    onTestFinished(async () => {
      await dev("down");
    });
    const up = await dev("up");
    expect(up.code, up.stderr).toBe(0);
    const kubeconfig = up.stdout.trim();
    const install = await slipway([
      "install",
      ...["--dev", "--no-wait", "--version", demoReleases().install],
      ...["--kubeconfig", kubeconfig, "-n", "slipway"],
    ]);
    expect(install.code, install.stderr).toBe(0);

    const config = new KubeConfig();
    config.loadFromFile(kubeconfig);
    const api = KubernetesObjectApi.makeApiClient(config);
    const read = (apiVersion: string, kind: string, namespace: string | undefined, name: string) =>
      api.read({ apiVersion, kind, metadata: { name, namespace } }) as Promise<Any>;
    await api.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ml" } });
    await api.create({
      apiVersion: pipelines,
      kind: "Provider",
      metadata: { name: "argo", namespace: "ml" },
      // no ServiceAccount: the dev operator's allowlist of Provider ServiceAccounts is empty
      spec: { type: "argo" },
    } as Any);
    await api.create({
      apiVersion: pipelines,
      kind: "Pipeline",
      metadata: { name: "train", namespace: "ml" },
      spec: {
        provider: "argo",
        image: "registry.example/ml/pipeline:1",
        steps: [{ name: "train", args: ["--epochs=1"] }],
      },
    } as Any);

    const synced = await eventually(
      "Pipeline ml/train Synchronized",
      () => read(pipelines, "Pipeline", "ml", "train"),
      (p) => condition(p, "Synchronized")?.status === "True",
      120_000,
    );
    expect(condition(synced, "Synchronized")).toMatchObject({ reason: "Succeeded" });
    const template = await read("argoproj.io/v1alpha1", "WorkflowTemplate", "ml", "ml.train");
    expect(template.metadata.labels).toMatchObject({ "pipelines.slipway.dev/name": "train" });
    const crd = await read(
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
      undefined,
      "workflowtemplates.argoproj.io",
    );
    expect(crd.metadata.labels).toMatchObject({ "app.kubernetes.io/component": "workflow-engine" });
  });
});
