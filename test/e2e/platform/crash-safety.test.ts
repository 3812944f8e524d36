/**
 * Crash safety: the operator is SIGKILLed at random moments during an install and during an update,
 * restarted, and must converge with nothing duplicated.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderClaims, renderIngress, renderService } from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { cli, listComponents, listObjects, ownedKinds, readPlatform, startOperator } from "./support.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kills = 10;

/** Starts and SIGKILLs the operator `kills` times, each at a random moment after it started working. */
async function killRepeatedly(namespace: string): Promise<void> {
  for (let i = 0; i < kills; i++) {
    const operator = startOperator(namespace, { lean: true });
    onTestFinished(() => operator.kill()); // also when the test fails or times out
    await eventually(
      "the operator to start its controllers",
      async () => operator.output(),
      (out) => out.includes("starting controller"),
      60_000,
    );
    await sleep(200 + Math.random() * 1500);
    await operator.kill();
  }
}

/** The Components the platform renders at `version` (from the release catalog). */
function renderedComponents(namespace: string, version: string): ComponentResource[] {
  const release = findRelease(version);
  if (!release) throw new Error(`release ${version} missing`);
  return renderComponents("slipway", namespace, {}, release).map(
    (c): ComponentResource => ({
      apiVersion: "platform.slipway.dev/v1beta1",
      kind: "Component",
      metadata: { name: c.objectName, namespace, uid: "rendered" },
      spec: c.spec,
    }),
  );
}

/** How many objects of each owned kind the platform's Components render (one each, or none). */
function renderedCounts(components: ComponentResource[]): Record<string, number> {
  const count = (render: (c: ComponentResource) => unknown) => components.filter((c) => render(c)).length;
  return {
    Deployment: components.filter((c) => c.spec.workload === "Deployment").length,
    StatefulSet: components.filter((c) => c.spec.workload === "StatefulSet").length,
    Service: count(renderService),
    Ingress: count(renderIngress),
    PersistentVolumeClaim: components.flatMap((c) => renderClaims(c)).length,
  };
}

// Every expected count comes from the catalog and the renderer, none is written out: a component
// gaining a Service (workflow-engine's health port) made a hand-kept count wrong, not the operator.
async function expectNoDuplicates(namespace: string, version: string): Promise<void> {
  const rendered = renderedComponents(namespace, version);
  const components = await listComponents(namespace);
  expect(components.map((c) => c.spec.component).sort()).toEqual(
    rendered.map((c) => c.spec.component).sort(),
  );
  const expected = renderedCounts(rendered);
  for (const [apiVersion, kind] of ownedKinds) {
    const objects = await listObjects<KubernetesObject>(namespace, apiVersion, kind);
    expect(objects.length, kind).toBe(expected[kind]);
    for (const object of objects) {
      expect(
        object.metadata?.ownerReferences?.filter((ref) => ref.controller),
        object.metadata?.name,
      ).toHaveLength(1);
    }
  }
  const pods = (await listObjects<V1Pod>(namespace, "v1", "Pod")).filter(
    (p) => !p.metadata?.deletionTimestamp,
  );
  expect(pods).toHaveLength(
    rendered.reduce((sum, c) => sum + (c.spec.stopped ? 0 : (c.spec.replicas ?? 1)), 0),
  );
  const platform = await readPlatform(namespace);
  expect(platform.metadata.finalizers).toEqual(["platform.slipway.dev/ordered-teardown"]);
}

async function convergeTo(namespace: string, version: string): Promise<void> {
  const operator = startOperator(namespace, { lean: true });
  onTestFinished(() => operator.kill());
  try {
    await eventually(
      `platform Running at ${version}`,
      () => readPlatform(namespace),
      (p) =>
        p.status?.phase === "Running" &&
        p.status.version === version &&
        p.status.observedGeneration === p.metadata.generation,
      240_000,
    );
    await expectNoDuplicates(namespace, version);
  } finally {
    await operator.kill();
  }
}

describe("operator crash safety", () => {
  it(`converges with no duplicates after ${kills} SIGKILLs during install and ${kills} during update`, {
    timeout: 900_000,
  }, async () => {
    const namespace = await testNamespace("platcrash");
    const install = await cli(namespace, "install", "--dev", "--version", "0.0.9", "--no-wait");
    expect(install.code, install.stderr).toBe(0);
    await killRepeatedly(namespace);
    await convergeTo(namespace, "0.0.9");

    const update = await cli(namespace, "update", "--version", "0.1.0", "--no-wait");
    expect(update.code, update.stderr).toBe(0);
    await killRepeatedly(namespace);
    await convergeTo(namespace, "0.1.0");
  });
});
