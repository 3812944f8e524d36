/**
 * The Run finalizer policy as the release installs it (the bundle's objects, bound to the namespaces
 * its operator serves) on the real API server: a Run created in a served namespace has the backend
 * finalizer from its create request, so the operator synchronizes it without patching the Run (no
 * manager of the operator on its metadata), and deleting it still deletes its backend object; a Run
 * in a namespace the operator does not serve gets none from the policy, and the operator adds the
 * finalizer itself, as before.
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { releaseRunFinalizerPolicy } from "../../../src/bundle/release.ts";
import { runFinalizerPolicyKinds } from "../../../src/bundle/run-finalizer.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { runFinalizerPolicyType } from "../../../src/pipelines/run-finalizer-policy.ts";
import { finalizer, types } from "../../../src/pipelines/types.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { startVertexServer, type VertexServer } from "../../support/fakes/vertex-server.ts";
import { pipelinesTestbed, vertexProviderSpec } from "../../support/pipelines-testbed.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

// the test Vertex endpoint listens on 127.0.0.1: the operator's outbound policy must allow it
const bed = pipelinesTestbed(true, [], { allow: ["127.0.0.1"] });
let vertex: VertexServer;
/** The policy objects installed by the current test (cluster-wide: removed after it). */
let installed: Any[] = [];

beforeAll(async () => {
  vertex = await startVertexServer();
});

afterEach(async () => {
  for (const object of installed)
    await bed.api.delete(runFinalizerPolicyType(object.kind), "", object.metadata.name);
  installed = [];
});

afterAll(async () => {
  await vertex?.stop();
});

const runObject = (ns: string, name: string) => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Run",
  metadata: { name, namespace: ns },
  spec: { provider: "vertex", pipeline: "train" },
});

/**
 * The release's policy objects for an install (in a namespace of its own, so its objects' names are
 * this test's) whose operator serves `served`, once the API server applies them there (a dry-run
 * create shows it).
 */
async function installPolicy(served: string): Promise<void> {
  const install = `plfin-install-${randomBytes(3).toString("hex")}`;
  const objects = releaseRunFinalizerPolicy(install, [served]);
  expect(objects.map((o) => o.kind)).toEqual(runFinalizerPolicyKinds);
  for (const object of objects) {
    installed.push(object);
    await bed.api.apply(runFinalizerPolicyType(object.kind), object as Any);
  }
  await eventually(
    "the policy applied to a (dry-run) Run",
    () =>
      bed.api.rest.request<Any>("POST", resourcePath(types.run, { namespace: served }), {
        query: { dryRun: "All" },
        body: runObject(served, "probe"),
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
    await installPolicy(ns);
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

  it("in a namespace the install does not serve the policy adds none; the operator adds the finalizer itself (a PATCH of the Run)", async () => {
    const ns = await vertexNamespace();
    await installPolicy(await testNamespace("plfin-served"));
    const created: Any = await bed.api.create(types.run, runObject(ns, "patched"));
    expect(created.metadata.finalizers).toBeUndefined();
    const run: Any = await bed.synced(types.run, ns, "patched");
    expect(run.metadata.finalizers).toEqual([finalizer]);
    expect(mainManagers(run)).toEqual(["slipway", "slipway-operator"]);
  });
});
