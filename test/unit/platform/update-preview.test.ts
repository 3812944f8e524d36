import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { findRelease, type Release } from "../../../src/platform/catalog.ts";
import { annotations } from "../../../src/platform/component-objects.ts";
import { types } from "../../../src/platform/resource-types.ts";
import {
  comparable,
  droppedComponentResolution,
  fieldChanges,
  formatPreview,
  newComponentUid,
  objectChange,
  renderUpdate,
} from "../../../src/platform/update-preview.ts";

const release = (version: string): Release => {
  const found = findRelease(version);
  if (!found) throw new Error(`no release ${version}`);
  return found;
};

const platform: PlatformResource = {
  apiVersion: "platform.slipway.dev/v1beta1",
  kind: "Platform",
  metadata: { name: "slipway", namespace: "ml", uid: "platform-uid" },
  spec: {},
} as PlatformResource;

describe("comparable", () => {
  it("drops status, server-written metadata and the hash annotations, keeps everything else", () => {
    const object = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        resourceVersion: "7",
        generation: 3,
        uid: "u",
        creationTimestamp: new Date("2026-01-01T00:00:00Z"),
        managedFields: [{ manager: "x" }],
        annotations: { [annotations.appliedHash]: "h", team: "ml" },
      },
      spec: {
        replicas: 1,
        template: { metadata: { annotations: { [annotations.templateHash]: "t" }, labels: { a: "b" } } },
      },
      status: { readyReplicas: 1 },
    };
    expect(comparable(object)).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", annotations: { team: "ml" } },
      spec: { replicas: 1, template: { metadata: { labels: { a: "b" } } } },
    });
  });
});

describe("fieldChanges", () => {
  it("names changed leaves by path, list items by their name", () => {
    const before = {
      spec: { containers: [{ name: "mlflow", image: "a:1", env: [{ name: "X", value: "1" }] }] },
    };
    const after = {
      spec: {
        containers: [
          {
            name: "mlflow",
            image: "a:2",
            env: [
              { name: "X", value: "1" },
              { name: "Y", value: "2" },
            ],
          },
        ],
      },
    };
    expect(fieldChanges(before, after)).toEqual([
      { path: "spec.containers[mlflow].env[Y]", after: { name: "Y", value: "2" } },
      { path: "spec.containers[mlflow].image", before: "a:1", after: "a:2" },
    ]);
  });

  it("compares unnamed lists by position and ignores key order", () => {
    expect(fieldChanges({ a: [1, 2], b: { x: 1, y: 2 } }, { b: { y: 2, x: 1 }, a: [1] })).toEqual([
      { path: "a[1]", before: 2 },
    ]);
    expect(fieldChanges({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe("objectChange", () => {
  const live = { apiVersion: "v1", kind: "Service", metadata: { name: "s", resourceVersion: "1" }, spec: {} };
  it("is a create without a live object, nothing when only server metadata differs", () => {
    expect(objectChange({ kind: "Service", name: "s" }, undefined, live)).toEqual({
      kind: "Service",
      name: "s",
      action: "create",
    });
    const stored = { ...live, metadata: { name: "s", resourceVersion: "2", generation: 2 } };
    expect(objectChange({ kind: "Service", name: "s" }, live, stored)).toBeUndefined();
  });
});

describe("resolutions", () => {
  it("a dropped Component deletes its inventory, claims included unless kept", () => {
    expect(droppedComponentResolution).toContain("deletes its inventory");
    expect(droppedComponentResolution).toContain(
      "PersistentVolumeClaims (data) included unless uninstall --keep-data",
    );
  });
});

describe("renderUpdate", () => {
  const liveComponent = (name: string, uid: string): ComponentResource =>
    ({ metadata: { name, namespace: "ml", uid, generation: 4 }, spec: {} }) as ComponentResource;

  it("renders each Component and its children, owned by the live Component's uid", () => {
    const rendered = renderUpdate(
      platform,
      {},
      release("0.2.0"),
      [liveComponent("slipway-postgres", "pg-uid")],
      types.component,
    );
    const postgres = rendered.find((c) => c.component === "postgres");
    expect(postgres?.objects.map(({ object }) => object.kind)).toEqual([
      "Component",
      "StatefulSet",
      "PersistentVolumeClaim",
      "Service",
      "NetworkPolicy",
    ]);
    const [component, ...children] = postgres?.objects ?? [];
    if (!component) throw new Error("no Component rendered");
    expect(component.force).toBe(false);
    expect((component.object as ComponentResource).spec.image).toBe("docker.io/library/postgres:15.20");
    // a Component not created yet: its children name a placeholder owner (listed as created, never sent)
    const mlflow = rendered.find((c) => c.component === "mlflow");
    expect(mlflow?.objects[1]?.object.metadata?.ownerReferences?.[0]?.uid).toBe(newComponentUid);
    for (const child of children) {
      expect(child.force).toBe(true);
      expect(child.object.metadata?.ownerReferences?.[0]?.uid).toBe("pg-uid");
      expect(child.object.metadata?.annotations?.[annotations.appliedHash]).toBeTruthy();
    }
  });

  it("leaves out a component the spec disables", () => {
    const rendered = renderUpdate(
      platform,
      { components: { web: { enabled: false } } },
      release("0.2.0"),
      [],
      types.component,
    );
    expect(rendered.map((c) => c.component)).not.toContain("web");
  });
});

describe("formatPreview", () => {
  it("one line per object, its changed fields as a diff, the resolution of a conflict", () => {
    const lines = formatPreview({
      platform: "slipway",
      namespace: "ml",
      from: "0.1.0",
      to: "0.2.0",
      components: [
        {
          component: "mlflow",
          objectName: "slipway-mlflow",
          unchanged: 2,
          objects: [
            {
              kind: "Deployment",
              name: "slipway-mlflow",
              action: "change",
              changes: [{ path: "spec.image", before: "a:1", after: "a:2" }],
            },
            { kind: "Ingress", name: "slipway-mlflow", action: "prune", resolution: "deleted" },
          ],
        },
        {
          component: "postgres",
          objectName: "slipway-postgres",
          unchanged: 0,
          objects: [
            {
              kind: "StatefulSet",
              name: "slipway-postgres",
              action: "conflict",
              fields: ["spec.selector"],
              message: "422",
              resolution: "will fail: …",
              resolved: false,
            },
          ],
        },
        { component: "web", objectName: "slipway-web", unchanged: 5, objects: [] },
      ],
    });
    expect(lines).toEqual([
      "dry run: platform slipway in namespace ml, 0.1.0 → 0.2.0; nothing is applied",
      "mlflow: (2 unchanged)",
      "  ~ Deployment ml/slipway-mlflow",
      "      - spec.image: a:1",
      "      + spec.image: a:2",
      "  - Ingress ml/slipway-mlflow",
      "      deleted",
      "postgres:",
      "  ! StatefulSet ml/slipway-postgres",
      "      immutable: spec.selector",
      "      will fail: …",
      "web: no change (5 unchanged)",
    ]);
  });
});
