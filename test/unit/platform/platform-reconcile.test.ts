import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import type { ComponentName } from "../../../src/apis/platform/schemas.ts";
import { type Release, releases } from "../../../src/platform/catalog.ts";
import type { ObservedComponent } from "../../../src/platform/platform-plan.ts";
import {
  afterResources,
  type ObservedPlatform,
  planPlatformReconcile,
} from "../../../src/platform/platform-reconcile.ts";
import { componentObject, renderComponents } from "../../../src/platform/render.ts";
import { types } from "../../../src/platform/resource-types.ts";

const at = "2026-12-07T03:00:00Z";
const teardown = "platform.slipway.dev/ordered-teardown";

function platformOf(
  spec: PlatformResource["spec"] = { version: "0.2.0" },
  metadata: Partial<PlatformResource["metadata"]> = {},
): PlatformResource {
  return {
    apiVersion: `${types.platform.group}/${types.platform.version}`,
    kind: types.platform.kind,
    metadata: {
      name: "slipway",
      namespace: "ns",
      uid: "platform-uid",
      generation: 1,
      finalizers: [teardown],
      ...metadata,
    },
    spec,
  } as PlatformResource;
}

const observe = (
  platform: PlatformResource,
  components: ObservedComponent[] = [],
  known: readonly Release[] = releases,
): ObservedPlatform => ({ platform, components, releases: known, render: {}, provider: "slipway" });

/** The Platform's conditions while in `phase` (none before: each changes at `at`). */
function conditions(phase: string, reason: string, message: string) {
  const condition = (type: string, holds: boolean, idle: string) => ({
    type,
    status: holds ? "True" : "False",
    reason: type === "Ready" || holds ? reason : idle,
    message: type === "Ready" || holds ? message : "",
    observedGeneration: 1,
    lastTransitionTime: at,
  });
  const transition = ["Installing", "Updating", "Starting", "Stopping", "Deleting"].includes(phase);
  return [
    condition("Ready", phase === "Running", ""),
    condition("Progressing", transition, "Idle"),
    condition("Degraded", phase === "Failed" || phase === "Degraded", "AsExpected"),
  ];
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.parse(at));
});
afterEach(() => vi.useRealTimers());

describe("planPlatformReconcile", () => {
  it("adds its finalizer first, then ensures its credential resources before any Component", () => {
    const platform = platformOf({ version: "0.2.0" }, { finalizers: [] });
    expect(planPlatformReconcile(observe(platform))).toEqual([
      { type: "AddFinalizer", finalizer: teardown },
      { type: "EnsureResources" },
    ]);
    expect(planPlatformReconcile(observe(platformOf()))).toEqual([{ type: "EnsureResources" }]);
  });

  it("fails a version it does not know, applying nothing", () => {
    const message = "spec.version 9.9.9 is not a release this operator knows (known: 0.2.0)";
    const known = releases.filter((release) => release.version === "0.2.0");
    expect(planPlatformReconcile(observe(platformOf({ version: "9.9.9" }), [], known))).toEqual([
      {
        type: "SetStatus",
        status: {
          phase: "Failed",
          ready: "0/0",
          components: [],
          message,
          observedGeneration: 1,
          conditions: conditions("Failed", "UnknownVersion", message),
        },
        events: [{ type: "Warning", reason: "Failed", message }],
      },
    ]);
  });

  it("fails on a credential Secret that is not its own, and looks at it again in 30 s", () => {
    const refused = "Secret slipway-postgres-credentials exists and is not this platform's";
    expect(afterResources(observe(platformOf()), refused)).toEqual([
      {
        type: "SetStatus",
        status: {
          phase: "Failed",
          ready: "0/0",
          components: [],
          message: refused,
          observedGeneration: 1,
          conditions: conditions("Failed", "CredentialNotOwned", refused),
        },
        events: [{ type: "Warning", reason: "Failed", message: refused }],
      },
      { type: "Requeue", afterMs: 30_000 },
    ]);
  });

  it("installs its Components wave by wave (dependencies first), then reports Installing", () => {
    const platform = platformOf();
    const plan = afterResources(observe(platform), undefined);
    const release = releases.find((r) => r.version === "0.2.0") as Release;
    const byName = new Map(
      renderComponents("slipway", "ns", platform.spec, release).map((d) => [
        d.name,
        componentObject(platform, d),
      ]),
    );
    const wave = (...names: string[]) => ({
      type: "ApplyComponents",
      components: names.map((name) => byName.get(name as ComponentName)),
    });
    expect(plan.slice(0, 3)).toEqual([
      wave("postgres", "object-store", "registry"),
      wave("mlflow", "workflow-engine", "api-server"),
      wave("web"),
    ]);
    const message = "applying postgres, object-store, registry, mlflow, workflow-engine, api-server, web";
    expect(plan.slice(3)).toEqual([
      {
        type: "SetStatus",
        status: expect.objectContaining({ phase: "Installing", message, provider: "slipway", ready: "0/7" }),
        events: [{ type: "Normal", reason: "Installing", message }],
      },
    ]);
  });

  describe("a deleted Platform", () => {
    const deleted = platformOf({ version: "0.2.0" }, { deletionTimestamp: at as unknown as Date });
    const observed = (name: string, dependencies: string[]): ObservedComponent =>
      ({
        objectName: `slipway-${name}`,
        spec: { component: name, dependencies },
        generation: 1,
        deleting: false,
        status: {},
      }) as unknown as ObservedComponent;

    it("deletes its Components dependents first, reports Deleting, and looks again in 5 s", () => {
      const plan = planPlatformReconcile(
        observe(deleted, [observed("postgres", []), observed("mlflow", ["postgres"])]),
      );
      expect(plan).toEqual([
        {
          type: "Delete",
          resource: types.component,
          key: { namespace: "ns", name: "slipway-mlflow" },
          propagationPolicy: "Foreground",
        },
        {
          type: "SetStatus",
          status: expect.objectContaining({ phase: "Deleting", message: "removing postgres, mlflow" }),
          events: [{ type: "Normal", reason: "Deleting", message: "removing postgres, mlflow" }],
        },
        { type: "Requeue", afterMs: 5_000 },
      ]);
    });

    it("removes its finalizer once its Components are gone, and then does nothing", () => {
      expect(planPlatformReconcile(observe(deleted))).toEqual([
        { type: "RemoveFinalizer", finalizer: teardown },
      ]);
      const released = platformOf(
        { version: "0.2.0" },
        { deletionTimestamp: at as unknown as Date, finalizers: [] },
      );
      expect(planPlatformReconcile(observe(released))).toEqual([]);
    });
  });
});
