/**
 * A Platform's update policy and its releases' gates on the real API server, the platform
 * controllers running with the bundle's RBAC and a catalog of the test's own releases (the
 * production catalog has no failing or gated release): 0.1.0, 0.1.1 whose web image kwok
 * crash-loops (src/dev/kwok-stages.yaml: `sim.slipway.dev/crashloop`, a component that cannot start),
 * 0.1.2 whose postgres pod stays Pending with no reason given (`sim.slipway.dev/hang`: a StatefulSet
 * rollout that makes no progress) and 0.3.0 which declares the gate `db-migration`. `slipway update`'s wait (followPlatform) runs
 * in-process against the same Platform.
 */
import {
  AppsV1Api,
  CustomObjectsApi,
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind, type ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { PlatformContext } from "../../../src/cli/platform/context.ts";
import { followPlatform } from "../../../src/cli/platform/follow.ts";
import { findRelease, type Release } from "../../../src/platform/catalog.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { workflowImages } from "../../../src/platform/workflow-images.ts";
import { cli } from "../../e2e/platform/support.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";

const base = findRelease("0.1.0") as Release;
const newer = findRelease("0.2.0") as Release;
const testReleases: Release[] = [
  base,
  {
    version: "0.1.1",
    images: { ...base.images, web: "sim.slipway.dev/crashloop" },
    workflowImages: workflowImages("0.1.0"),
  },
  {
    version: "0.1.2",
    images: { ...base.images, postgres: "sim.slipway.dev/hang" },
    workflowImages: workflowImages("0.1.0"),
  },
  {
    version: "0.3.0",
    images: newer.images,
    workflowImages: workflowImages("0.2.0"),
    gates: [{ name: "db-migration", description: "the database schema moves to a new layout" }],
  },
];

const custom = () => adminConfig().makeApiClient(CustomObjectsApi);
const coordinates = (namespace: string) => ({
  group: PlatformKind.group,
  version: PlatformKind.version,
  namespace,
});
const readPlatform = async (namespace: string) =>
  (await custom().getNamespacedCustomObject({
    ...coordinates(namespace),
    plural: PlatformKind.plural,
    name: "slipway",
  })) as PlatformResource;
const patchSpec = async (namespace: string, spec: object) =>
  (await custom().patchNamespacedCustomObject(
    { ...coordinates(namespace), plural: PlatformKind.plural, name: "slipway", body: { spec } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  )) as PlatformResource;
const componentVersions = async (namespace: string) =>
  (
    (await custom().listNamespacedCustomObject({ ...coordinates(namespace), plural: ComponentKind.plural }))
      .items as ComponentResource[]
  )
    .map((c) => c.spec.version)
    .filter((v, i, all) => all.indexOf(v) === i);
const webImage = async (namespace: string) =>
  (await adminConfig().makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "slipway-web", namespace }))
    .spec?.template.spec?.containers[0]?.image;

const runningAt = (namespace: string, version: string) =>
  eventually(
    `platform Running at ${version}`,
    () => readPlatform(namespace),
    (p) =>
      p.status?.phase === "Running" &&
      p.status.version === version &&
      p.status.observedGeneration === p.metadata.generation,
    120_000,
  );

/** `slipway update`'s wait for `version`, as the CLI runs it; resolves with its error line, if any. */
async function followUpdate(namespace: string, generation: number, version: string): Promise<string> {
  const context = new PlatformContext({
    kubeconfig: inject("kubeconfig"),
    namespace,
    platform: "slipway",
    output: "json",
  });
  try {
    await followPlatform(context, { until: "Running", generation, version, timeoutMs: 120_000, pollMs: 200 });
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

describe("updatePolicy.onFailure", () => {
  it("Rollback: a release whose component cannot start rolls back to Running at the old version; the wait ends naming the component; Halt stays Failed", {
    timeout: 400_000,
  }, async () => {
    const namespace = await testNamespace("rollback");
    await operatorWithBundleRbac(namespace, platformControllers({}, testReleases));
    await createPlatform(namespace, { version: "0.1.0", updatePolicy: { onFailure: "Rollback" } });
    await runningAt(namespace, "0.1.0");

    const updated = await patchSpec(namespace, { version: "0.1.1" });
    const line = await followUpdate(namespace, updated.metadata.generation ?? 0, "0.1.1");
    expect(line).toMatch(
      /^platform slipway rolled back to 0\.1\.0: the update to 0\.1\.1 failed: web: pod slipway-web-[\w-]+: CrashLoopBackOff \(restarted 5 times\): back-off restarting failed container web$/,
    );
    const rolledBack = await readPlatform(namespace);
    expect(rolledBack.spec.version).toBe("0.1.1");
    expect(rolledBack.status).toMatchObject({
      phase: "Running",
      version: "0.1.0",
      ready: "7/7",
      rollback: { from: "0.1.1", to: "0.1.0", component: "web" },
    });
    expect(rolledBack.status?.conditions?.find((c) => c.type === "RolledBack")).toMatchObject({
      status: "True",
      reason: "UpdateFailed",
    });
    expect(rolledBack.status?.conditions?.find((c) => c.type === "RolledBack")?.message).toMatch(
      /^rolled back from 0\.1\.1 to 0\.1\.0: web failed: pod slipway-web-/,
    );
    expect(await webImage(namespace)).toBe(base.images.web);
    expect(await componentVersions(namespace)).toEqual(["0.1.0"]);
    const events = (await adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace })).items;
    const warnings = events.filter((e) => e.reason === "RolledBack");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ type: "Warning", regarding: { kind: "Platform", name: "slipway" } });
    expect(warnings[0]?.note).toMatch(/^rolled back from 0\.1\.1 to 0\.1\.0: web failed: pod slipway-web-/);

    // Another version clears the rollback; under Halt the failed update stays Failed at the new version.
    const back = await patchSpec(namespace, { version: "0.1.0" });
    const cleared = await eventually(
      "the rollback cleared",
      () => readPlatform(namespace),
      (p) => p.status?.observedGeneration === back.metadata.generation && p.status?.phase === "Running",
    );
    expect(cleared.status?.rollback).toBeUndefined();
    expect(cleared.status?.conditions?.find((c) => c.type === "RolledBack")).toBeUndefined();
    const halted = await patchSpec(namespace, { version: "0.1.1", updatePolicy: { onFailure: "Halt" } });
    expect(await followUpdate(namespace, halted.metadata.generation ?? 0, "0.1.1")).toMatch(
      /^platform slipway failed: web: pod slipway-web-[\w-]+: CrashLoopBackOff/,
    );
    const failed = await readPlatform(namespace);
    expect(failed.status).toMatchObject({ phase: "Failed", version: "0.1.0" });
    expect(failed.status?.rollback).toBeUndefined();
    expect(await webImage(namespace)).toBe("sim.slipway.dev/crashloop");
  });
});

describe("a StatefulSet's progress deadline", () => {
  it("a postgres rollout that makes no progress fails at spec.updatePolicy.progressDeadlineSeconds and rolls back, its stuck pod replaced", {
    timeout: 400_000,
  }, async () => {
    const namespace = await testNamespace("sts-deadline");
    await operatorWithBundleRbac(namespace, platformControllers({}, testReleases));
    await createPlatform(namespace, {
      version: "0.1.0",
      updatePolicy: { onFailure: "Rollback", progressDeadlineSeconds: 10 },
    });
    await runningAt(namespace, "0.1.0");

    const updated = await patchSpec(namespace, { version: "0.1.2" });
    const line = await followUpdate(namespace, updated.metadata.generation ?? 0, "0.1.2");
    expect(line).toMatch(
      /^platform slipway rolled back to 0\.1\.0: the update to 0\.1\.2 failed: postgres: rollout exceeded its progress deadline: no progress for 10 s \(progressDeadlineSeconds\): /,
    );
    const rolledBack = await runningAt(namespace, "0.1.0");
    expect(rolledBack.status?.rollback).toMatchObject({ from: "0.1.2", to: "0.1.0", component: "postgres" });
    const postgres = await adminConfig()
      .makeApiClient(AppsV1Api)
      .readNamespacedStatefulSet({ name: "slipway-postgres", namespace });
    expect(postgres.spec?.template.spec?.containers[0]?.image).toBe(base.images.postgres);
    expect(postgres.status?.readyReplicas).toBe(1);
    const events = (await adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace })).items;
    expect(events.filter((e) => e.reason === "DeletedStuckPod").map((e) => e.note)).toContainEqual(
      expect.stringMatching(/^deleted pod slipway-postgres-0: it is not Ready and runs revision /),
    );
  });
});

describe("release gates", () => {
  it("an update to a gated release waits, naming the gate, until spec.acknowledgedGates lists it; a bad gate name is refused by the CRD", {
    timeout: 300_000,
  }, async () => {
    const namespace = await testNamespace("gates");
    await operatorWithBundleRbac(namespace, platformControllers({}, testReleases));
    // an install waits for no gate: nothing ran before it
    await createPlatform(namespace, { version: "0.1.0" });
    await runningAt(namespace, "0.1.0");

    const updated = await patchSpec(namespace, { version: "0.3.0" });
    const line = await followUpdate(namespace, updated.metadata.generation ?? 0, "0.3.0");
    expect(line).toBe(
      "platform slipway did not update: the update to 0.3.0 waits for acknowledgement of db-migration (the database schema moves to a new layout): run slipway update --version 0.3.0 --acknowledge db-migration, or add db-migration to spec.acknowledgedGates",
    );
    const waiting = await readPlatform(namespace);
    expect(waiting.status).toMatchObject({ phase: "Running", version: "0.1.0" });
    expect(waiting.status?.conditions?.find((c) => c.type === "UpdateGated")).toMatchObject({
      status: "True",
      reason: "AwaitingAcknowledgement",
    });
    // nothing of 0.3.0 was applied
    expect(await componentVersions(namespace)).toEqual(["0.1.0"]);
    expect(await webImage(namespace)).toBe(base.images.web);

    await expect(patchSpec(namespace, { acknowledgedGates: ["DB_Migration"] })).rejects.toThrow(
      /spec\.acknowledgedGates must be a gate name: lowercase letters, digits and '-'/,
    );

    const acknowledged = await patchSpec(namespace, { acknowledgedGates: ["db-migration"] });
    expect(await followUpdate(namespace, acknowledged.metadata.generation ?? 0, "0.3.0")).toBe("");
    const done = await runningAt(namespace, "0.3.0");
    expect(done.status?.conditions?.find((c) => c.type === "UpdateGated")).toBeUndefined();
    expect(await componentVersions(namespace)).toEqual(["0.3.0"]);
    expect(await webImage(namespace)).toBe(newer.images.web);
  });
});

describe("slipway update --acknowledge (bin/slipway)", () => {
  it("refuses a gate the release does not declare, or a name that is no gate name, before writing anything", async () => {
    const namespace = await testNamespace("ack-cli");
    await createPlatform(namespace, { version: "0.1.0" });
    const undeclared = await cli(
      namespace,
      "update",
      "--version",
      "0.2.0",
      "--acknowledge",
      "db-migration",
      "--no-wait",
    );
    expect(undeclared.code).toBe(1);
    expect(undeclared.stderr.trim()).toBe(
      "error: --acknowledge db-migration: release 0.2.0 declares no such gate (its gates: none)",
    );
    const malformed = await cli(namespace, "update", "--acknowledge", "DB_Migration", "--no-wait");
    expect(malformed.code).toBe(1);
    expect(malformed.stderr.trim()).toBe(
      "error: --acknowledge must be a gate name: lowercase letters, digits and '-', at most 63 characters (e.g. db-migration)",
    );
    const platform = await readPlatform(namespace);
    expect(platform.spec.version).toBe("0.1.0");
    expect(platform.spec.acknowledgedGates).toBeUndefined();
  });
});
