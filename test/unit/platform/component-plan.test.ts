import type { V1Pod } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import type { ComponentName } from "../../../src/apis/platform/schemas.ts";
import { ApiError } from "../../../src/kube/rest.ts";
import type { KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { annotated } from "../../../src/platform/component-children.ts";
import { type InventoryEntry, renderedKey } from "../../../src/platform/component-inventory.ts";
import { renderService, renderWorkload } from "../../../src/platform/component-objects.ts";
import {
  type Applied,
  afterChildren,
  afterWorkload,
  afterWorkloadRefused,
  type ObservedComponent,
  planComponent,
  refused,
} from "../../../src/platform/component-plan.ts";
import { renderNetworkPolicy } from "../../../src/platform/network-policies.ts";
import { componentObject, renderComponents } from "../../../src/platform/render.ts";
import { types } from "../../../src/platform/resource-types.ts";

const at = "2026-12-07T03:00:00Z";
const now = Date.parse(at);
const release = findRelease("0.2.0");
if (!release) throw new Error("release 0.2.0 missing");

const platform: PlatformResource = {
  apiVersion: `${types.platform.group}/${types.platform.version}`,
  kind: types.platform.kind,
  metadata: { name: "slipway", namespace: "ns", uid: "platform-uid" },
  spec: {},
} as PlatformResource;

/** The Component the Platform renders for `name` (mlflow: a Deployment, a Service, a NetworkPolicy). */
function componentOf(name: ComponentName, status?: ComponentResource["status"]): ComponentResource {
  const desired = renderComponents("slipway", "ns", {}, release as NonNullable<typeof release>).find(
    (d) => d.name === name,
  );
  if (!desired) throw new Error(name);
  const object = componentObject(platform, desired);
  return {
    ...object,
    metadata: { ...object.metadata, uid: `${name}-uid`, generation: 1 },
    ...(status ? { status } : {}),
  };
}

/** A sibling whose controller reported `phase` for its latest spec. */
const settled = (name: ComponentName, phase: "Deploying" | "Ready" | "Pending") =>
  componentOf(name, { phase, observedGeneration: 1 });

/** `object` as the API server answers it: annotated with its rendering's hash, with a uid. */
const live = <T extends KubeObject>(object: T, uid: string, extra: Partial<KubeObject> = {}): T => {
  const rendered = annotated(object);
  return { ...rendered, ...extra, metadata: { ...rendered.metadata, uid, ...extra.metadata } };
};

const entry = (type: ResourceType, name: string, uid: string): InventoryEntry => ({
  group: type.group,
  kind: type.kind,
  namespace: "ns",
  name,
  uid,
});

/** mlflow's children as the API server answered them. */
const serviceEntry = entry(types.service, "slipway-mlflow", "service-uid");
const workloadEntry = entry(types.deployment, "slipway-mlflow", "workload-uid");
const policyEntry = entry(types.networkPolicy, "slipway-mlflow", "policy-uid");

function observe(
  component: ComponentResource,
  options: {
    siblings?: ComponentResource[];
    cached?: [ResourceType, KubeObject][];
    readyEndpoints?: number;
  } = {},
): ObservedComponent {
  return {
    component,
    platform,
    siblings: options.siblings ?? [],
    cached: new Map((options.cached ?? []).map(([type, object]) => [renderedKey(type, object), object])),
    labelled: [],
    pods: [],
    readyEndpoints: options.readyEndpoints ?? 0,
    now,
  };
}

/** A Component's status as the API server is to get it (no earlier conditions: each changes at `at`). */
function status(phase: string, message: string, fields: Record<string, unknown>) {
  const condition = (type: string, holds: boolean, reason: string) => ({
    type,
    status: holds ? "True" : "False",
    reason,
    message: type === "Ready" || holds ? message : "",
    observedGeneration: 1,
    lastTransitionTime: at,
  });
  return {
    phase,
    ...fields,
    message,
    observedGeneration: 1,
    conditions: [
      condition("Ready", phase === "Ready", phase),
      condition("Degraded", phase === "Failed", phase === "Failed" ? phase : "AsExpected"),
    ],
  };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now);
});
afterEach(() => vi.useRealTimers());

const mlflowDependencies = (phase: "Deploying" | "Ready" | "Pending") => [
  settled("postgres", phase),
  settled("object-store", phase),
];

describe("planComponent: waiting for its dependencies", () => {
  it("prepares its Service and NetworkPolicy one level ahead, leaves the workload, and reports Pending", () => {
    const component = componentOf("mlflow");
    const siblings = mlflowDependencies("Deploying");
    const observed = observe(component, { siblings });
    const service = annotated(renderService(component) as KubeObject);
    const policy = annotated(renderNetworkPolicy(component, siblings));
    expect(planComponent(observed)).toEqual([
      {
        type: "ApplyChildren",
        writes: [
          { resource: types.service, object: service, create: true },
          { resource: types.networkPolicy, object: policy, create: true },
        ],
        unchanged: [],
      },
    ]);

    const applied: Applied[] = [
      [types.service, live(service, "service-uid")],
      [types.networkPolicy, live(policy, "policy-uid")],
    ];
    expect(afterChildren(observed, applied)).toEqual([
      {
        type: "SetStatus",
        status: status("Pending", "waiting for object-store, postgres to be Ready", {
          replicas: 1,
          readyReplicas: 0,
          ready: "0/1",
          inventory: [serviceEntry, policyEntry],
        }),
      },
      { type: "Requeue", afterMs: 15_000 },
    ]);
  });

  it("prepares nothing while a dependency has not begun its own rollout", () => {
    const observed = observe(componentOf("mlflow"), { siblings: mlflowDependencies("Pending") });
    expect(planComponent(observed)).toEqual([
      {
        type: "SetStatus",
        status: status("Pending", "waiting for object-store, postgres to be Ready", {
          replicas: 1,
          readyReplicas: 0,
          ready: "0/1",
          inventory: [],
        }),
      },
      { type: "Requeue", afterMs: 15_000 },
    ]);
  });

  it("adds the inventory finalizer first to a Component an older operator made without it", () => {
    const component = componentOf("mlflow");
    component.metadata.finalizers = [];
    const [first] = planComponent(observe(component, { siblings: mlflowDependencies("Pending") }));
    expect(first).toEqual({ type: "AddFinalizer", finalizer: "platform.slipway.dev/inventory" });
  });
});

describe("planComponent: its workload", () => {
  const readyDependencies = mlflowDependencies("Ready").map((sibling) => ({
    ...sibling,
    status: { ...sibling.status, version: "0.2.0" },
  }));

  /** mlflow's Service and NetworkPolicy, cached as applied from the current rendering. */
  function currentChildren(component: ComponentResource): [ResourceType, KubeObject][] {
    return [
      [types.service, live(renderService(component) as KubeObject, "service-uid")],
      [types.networkPolicy, live(renderNetworkPolicy(component, readyDependencies), "policy-uid")],
    ];
  }

  it("applies nothing when the cached workload is current, prunes what the rendering dropped, and reports Ready", () => {
    const oldConfig = entry(types.componentConfigMap, "slipway-mlflow", "config-uid");
    // as recorded: in entryKey order (group, kind, namespace, name)
    const inventory = [oldConfig, serviceEntry, workloadEntry, policyEntry];
    const component = componentOf("mlflow", { phase: "Deploying", observedGeneration: 1, inventory });
    const owner = renderService(component)?.metadata?.ownerReferences;
    const workload = live(renderWorkload(component), "workload-uid", {
      metadata: { generation: 1 },
      status: {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
    } as Partial<KubeObject>);
    const config = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "slipway-mlflow", namespace: "ns", uid: "config-uid", ownerReferences: owner },
    };
    const observed = observe(component, {
      siblings: readyDependencies,
      cached: [
        ...currentChildren(component),
        [types.deployment, workload],
        [types.componentConfigMap, config],
      ],
      readyEndpoints: 1,
    });
    expect(planComponent(observed)).toEqual([
      {
        type: "Delete",
        resource: types.componentConfigMap,
        key: { namespace: "ns", name: "slipway-mlflow" },
        uid: "config-uid",
        propagationPolicy: "Background",
        tolerateConflict: true,
      },
      {
        type: "SetStatus",
        status: status("Ready", "1/1 ready", {
          version: "0.2.0",
          replicas: 1,
          readyReplicas: 1,
          ready: "1/1",
          // a pruned entry stays until it is seen gone
          inventory,
        }),
        events: [{ type: "Normal", reason: "Ready", message: "1/1 ready" }],
      },
    ]);
  });

  it("applies a workload that is not current once the gate is open, and the rollout starts when it was applied", () => {
    const component = componentOf("mlflow");
    const children = currentChildren(component);
    const observed = observe(component, { siblings: readyDependencies, cached: children });
    const rendered = annotated(renderWorkload(component));
    expect(planComponent(observed)).toEqual([
      {
        type: "ApplyWorkload",
        write: { resource: types.deployment, object: rendered, create: true },
        children,
      },
    ]);

    const appliedAt = now + 250;
    expect(afterWorkload(observed, children, live(rendered, "workload-uid"), appliedAt)).toEqual([
      {
        type: "SetStatus",
        status: status("Deploying", "0/1 pods updated", {
          replicas: 1,
          readyReplicas: 0,
          ready: "0/1",
          inventory: [serviceEntry, workloadEntry, policyEntry],
          rolloutStartedAt: new Date(appliedAt).toISOString(),
        }),
        events: [{ type: "Normal", reason: "Deploying", message: "0/1 pods updated" }],
      },
      { type: "Requeue", afterMs: 15_000 },
    ]);
  });

  it("looks again soon when an applied object is not the cache's yet", () => {
    const component = componentOf("mlflow");
    const children: Applied[] = [[types.service, undefined]];
    const observed = observe(component, { siblings: readyDependencies });
    const plan = afterWorkload(observed, children, undefined, now);
    expect(plan.at(-1)).toEqual({ type: "Requeue", afterMs: 500 });
  });

  describe("a workload whose change the API server refuses as immutable", () => {
    const component = componentOf("mlflow", { phase: "Ready", observedGeneration: 1, version: "0.2.0" });
    const children = currentChildren(component);
    const old = live(renderWorkload(component), "workload-uid");
    old.metadata = { ...old.metadata, annotations: { "platform.slipway.dev/applied-hash": "older" } };
    const observed = observe(component, {
      siblings: readyDependencies,
      cached: [...children, [types.deployment, old]],
    });
    const refusal = new ApiError(422, "PATCH", "/apis/apps/v1/namespaces/ns/deployments/slipway-mlflow", {
      details: { causes: [{ field: "spec.selector", message: "field is immutable" }] },
    });

    it("is applied over the cached one first", () => {
      expect(planComponent(observed)).toEqual([
        {
          type: "ApplyWorkload",
          write: { resource: types.deployment, object: annotated(renderWorkload(component)), create: false },
          children,
        },
      ]);
    });

    it("is recreated: an Event, its deletion with its uid, Updating, and a look again soon", () => {
      const message =
        "recreating Deployment slipway-mlflow: spec.selector cannot change; the old one is deleted (propagationPolicy Background) and a new one is created once it is gone";
      expect(afterWorkloadRefused(observed, children, refusal)).toEqual([
        {
          type: "RecordEvent",
          event: {
            type: "Normal",
            reason: "Recreated",
            message:
              "Deployment slipway-mlflow is recreated: spec.selector is immutable; deleted with propagationPolicy Background, so its pods are replaced by the new one's; its PersistentVolumeClaims and their data are kept",
          },
        },
        {
          type: "Delete",
          resource: types.deployment,
          key: { namespace: "ns", name: "slipway-mlflow" },
          propagationPolicy: "Background",
          uid: "workload-uid",
        },
        {
          type: "SetStatus",
          status: status("Updating", message, {
            version: "0.2.0",
            replicas: 1,
            readyReplicas: 0,
            ready: "0/1",
            inventory: [serviceEntry, policyEntry],
          }),
          events: [{ type: "Normal", reason: "Updating", message }],
        },
        { type: "Requeue", afterMs: 500 },
      ]);
    });

    it("is not recreated when it was created from this very rendering: Failed naming the field, and the reconcile fails", () => {
      // scaled by hand: not current, though applied from this rendering
      const scaled = live(renderWorkload(component), "workload-uid", {
        spec: { ...renderWorkload(component).spec, replicas: 3 },
      } as Partial<KubeObject>);
      const again = observe(component, {
        siblings: readyDependencies,
        cached: [...children, [types.deployment, scaled]],
      });
      const message =
        "Deployment slipway-mlflow cannot be updated: spec.selector is immutable and it is not recreated: the Deployment was already created from this rendering and is refused again";
      expect(afterWorkloadRefused(again, children, refusal)).toEqual([
        {
          type: "SetStatus",
          status: status("Failed", message, {
            version: "0.2.0",
            replicas: 1,
            readyReplicas: 0,
            ready: "0/1",
            inventory: [serviceEntry, workloadEntry, policyEntry],
          }),
          events: [{ type: "Warning", reason: "Failed", message }],
        },
        { type: "Fail", message },
      ]);
    });

    it("leaves any other error to stand", () => {
      const other = new ApiError(422, "PATCH", "/apis/apps/v1/x", {
        details: { causes: [{ field: "spec.x" }] },
      });
      expect(afterWorkloadRefused(observed, children, other)).toBeUndefined();
      expect(afterWorkloadRefused(observed, children, new Error("boom"))).toBeUndefined();
    });
  });
});

describe("planComponent: a StatefulSet's stuck pods", () => {
  it("deletes a pod of an old revision that is not Ready (with its uid), each with an Event, before the status", () => {
    const component = componentOf("postgres");
    const statefulSet = live(renderWorkload(component), "workload-uid", {
      metadata: { generation: 1 },
      status: { observedGeneration: 1, replicas: 1, currentRevision: "rev-1", updateRevision: "rev-2" },
    } as Partial<KubeObject>);
    const pod = (name: string, revision: string, ready: boolean) =>
      ({
        metadata: {
          name,
          namespace: "ns",
          uid: `${name}-uid`,
          labels: { "controller-revision-hash": revision },
        },
        status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
      }) as V1Pod;
    const observed = {
      ...observe(component, { cached: [[types.statefulSet, statefulSet]] }),
      pods: [pod("slipway-postgres-0", "rev-1", false), pod("slipway-postgres-1", "rev-1", true)],
    };
    const plan = afterChildren(observed, []);
    expect(plan.slice(0, 2)).toEqual([
      {
        type: "Delete",
        resource: types.pod,
        key: { namespace: "ns", name: "slipway-postgres-0" },
        uid: "slipway-postgres-0-uid",
        tolerateConflict: true,
      },
      {
        type: "RecordEvent",
        event: {
          type: "Normal",
          reason: "DeletedStuckPod",
          message:
            "deleted pod slipway-postgres-0: it is not Ready and runs revision rev-1, not rev-2, which a StatefulSet does not replace on its own",
        },
      },
    ]);
    expect(plan.slice(2).map((command) => command.type)).toEqual(["SetStatus", "Requeue"]);
  });
});

describe("planComponent: a deleted Component", () => {
  const inventory = [workloadEntry, entry(types.pvc, "slipway-mlflow-data", "claim-uid"), serviceEntry];
  const component = componentOf("mlflow", { phase: "Ready", observedGeneration: 1, inventory });
  component.metadata.deletionTimestamp = at as unknown as Date;
  const owner = renderService(component)?.metadata?.ownerReferences;
  const child = (kind: string, name: string, uid: string, deleting = false): KubeObject => ({
    kind,
    metadata: {
      name,
      namespace: "ns",
      uid,
      ownerReferences: owner,
      // as the cache holds it: a string
      ...(deleting ? { deletionTimestamp: at as unknown as Date } : {}),
    },
  });

  it("deletes its inventory (a claim too) in the foreground, not what is already going, and looks again", () => {
    const observed = observe(component, {
      cached: [
        [types.deployment, child("Deployment", "slipway-mlflow", "workload-uid")],
        [types.pvc, child("PersistentVolumeClaim", "slipway-mlflow-data", "claim-uid")],
        [types.service, child("Service", "slipway-mlflow", "service-uid", true)],
      ],
    });
    const deletion = (resource: ResourceType, name: string, uid: string) => ({
      type: "Delete",
      resource,
      key: { namespace: "ns", name },
      uid,
      propagationPolicy: "Foreground",
      tolerateConflict: true,
    });
    expect(planComponent(observed)).toEqual([
      deletion(types.deployment, "slipway-mlflow", "workload-uid"),
      deletion(types.pvc, "slipway-mlflow-data", "claim-uid"),
      { type: "Requeue", afterMs: 1_000 },
    ]);
  });

  it("removes its finalizer once all of it is gone", () => {
    expect(planComponent(observe(component))).toEqual([
      { type: "RemoveFinalizer", finalizer: "platform.slipway.dev/inventory" },
    ]);
  });

  it("does nothing once its finalizer is gone", () => {
    expect(
      planComponent(observe({ ...component, metadata: { ...component.metadata, finalizers: [] } })),
    ).toEqual([]);
  });
});

describe("planComponent: a refused Component", () => {
  const failed = (message: string) => [
    {
      type: "SetStatus",
      status: status("Failed", message, { replicas: 0, readyReplicas: 0, ready: "0/0" }),
      events: [{ type: "Warning", reason: "Failed", message }],
    },
    { type: "Requeue", afterMs: 15_000 },
  ];

  it("applies nothing when an object of a child's name is someone else's", () => {
    const component = componentOf("mlflow");
    const foreign = {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "slipway-mlflow",
        namespace: "ns",
        uid: "other-uid",
        ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "x-uid", controller: true }],
      },
    };
    const message =
      "Service slipway-mlflow already exists and is not owned by this Component: nothing is applied";
    expect(planComponent(observe(component, { cached: [[types.service, foreign]] }))).toEqual(
      failed(message),
    );
    expect(refused(observe(component), message)).toEqual(failed(message));
  });

  it("applies nothing when its Platform does not exist", () => {
    const observed = { ...observe(componentOf("mlflow")), platform: undefined };
    expect(planComponent(observed)).toEqual(
      failed("its controlling Platform slipway does not exist: nothing is rendered for it"),
    );
  });
});
