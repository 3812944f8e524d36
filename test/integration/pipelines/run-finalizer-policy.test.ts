/**
 * The Run finalizer policy (src/pipelines/run-finalizer-policy.ts) on the real API server: a Run
 * created in a namespace it binds has the backend finalizer from its create request, so the
 * operator synchronizes it without patching the Run (no manager of the operator on its metadata),
 * and deleting it still deletes its backend object; where the policy does not apply, the operator
 * adds the finalizer itself, as before.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVertexServer, type VertexServer } from "../../../src/dev/vertex-server.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { runFinalizerPolicy, runFinalizerPolicyTypes } from "../../../src/pipelines/run-finalizer-policy.ts";
import { finalizer, types } from "../../../src/pipelines/types.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { pipelinesTestbed, vertexProviderSpec } from "../../support/pipelines-testbed.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const bed = pipelinesTestbed();
const policyName = `slipway-run-finalizer-test-${randomBytes(3).toString("hex")}`;
let vertex: VertexServer;

beforeAll(async () => {
  vertex = await startVertexServer();
});

afterAll(async () => {
  for (const type of runFinalizerPolicyTypes) await bed.api.delete(type, "", policyName);
  await vertex?.stop();
});

const runObject = (ns: string, name: string) => ({
  apiVersion: "pipelines.slipway.dev/v1alpha1",
  kind: "Run",
  metadata: { name, namespace: ns },
  spec: { provider: "vertex", pipeline: "train" },
});

/** The policy bound to namespace `ns` only, once the API server applies it (a dry-run create shows it). */
async function bindPolicy(ns: string): Promise<void> {
  const objects = runFinalizerPolicy({
    name: policyName,
    namespaceLabels: { "kubernetes.io/metadata.name": ns },
  });
  for (const [i, object] of objects.entries())
    await bed.api.apply(runFinalizerPolicyTypes[i as 0 | 1], object as Any);
  await eventually(
    "the policy applied to a (dry-run) Run",
    () =>
      bed.api.rest.request<Any>("POST", resourcePath(types.run, { namespace: ns }), {
        query: { dryRun: "All" },
        body: runObject(ns, "probe"),
      }),
    (run) => run.metadata.finalizers?.includes(finalizer),
  );
}

async function vertexNamespace(): Promise<string> {
  const ns = await testNamespace("plfin");
  await bed.create(types.provider, ns, "vertex", vertexProviderSpec(vertex.endpoint.port));
  await bed.create(types.pipeline, ns, "train", {
    provider: "vertex",
    image: "registry.example/ml/pipeline:1",
    steps: [{ name: "train" }],
  });
  await eventually(
    "Pipeline train synchronized",
    () => bed.api.get<Any>(types.pipeline, ns, "train"),
    (p) => p?.status?.state === "Succeeded",
    180_000, // the first vertex Provider loads the client library (a dynamic import)
  );
  return ns;
}

/** Who wrote the Run's metadata and spec (not its status): the managers of its main-resource fields. */
const mainManagers = (run: Any): string[] =>
  (run.metadata.managedFields ?? [])
    .filter((entry: Any) => entry.subresource === undefined)
    .map((entry: Any) => entry.manager);

describe("the Run finalizer policy", () => {
  it("a Run has the finalizer from its create: synchronized without a finalizer PATCH, its job deleted with it", async () => {
    const ns = await vertexNamespace();
    await bindPolicy(ns);
    const created: Any = await bed.api.create(types.run, runObject(ns, "admitted"));
    expect(created.metadata.finalizers).toEqual([finalizer]);
    const run: Any = await bed.synced(types.run, ns, "admitted");
    expect(vertex.jobs.get(run.status.provider.id)).toMatchObject({ displayName: `${ns}.admitted` });
    expect(mainManagers(run)).toEqual(["slipway"]); // the test's client only

    await bed.api.delete(types.run, ns, "admitted");
    await eventually(
      "the Run and its job deleted",
      async () => ({
        run: await bed.api.get(types.run, ns, "admitted"),
        jobs: [...vertex.jobs.values()].filter((job) => job.displayName === `${ns}.admitted`),
      }),
      ({ run, jobs }) => run === undefined && jobs.length === 0,
    );
    expect(vertex.violations).toEqual([]);
  });

  it("without the policy, the operator adds the finalizer itself (a PATCH of the Run)", async () => {
    const ns = await vertexNamespace();
    const created: Any = await bed.api.create(types.run, runObject(ns, "patched"));
    expect(created.metadata.finalizers).toBeUndefined();
    const run: Any = await bed.synced(types.run, ns, "patched");
    expect(run.metadata.finalizers).toEqual([finalizer]);
    expect(mainManagers(run)).toEqual(["slipway", "slipway-operator"]);
  });
});
