import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import {
  childAccess,
  foreignChildrenMessage,
  notFromPlatform,
} from "../../../src/platform/component-ownership.ts";

const platform = {
  apiVersion: "platform.slipway.dev/v1beta1",
  kind: "Platform",
  metadata: { name: "slipway", namespace: "ns", uid: "p-1" },
  spec: {},
} as PlatformResource;

const controller = {
  apiVersion: platform.apiVersion ?? "",
  kind: "Platform",
  name: "slipway",
  uid: "p-1",
  controller: true,
};

const component = (name: string, owners: object[] = [controller], spec = "postgres") =>
  ({
    metadata: { name, namespace: "ns", uid: "c-1", ownerReferences: owners },
    spec: { component: spec },
  }) as unknown as ComponentResource;

describe("notFromPlatform", () => {
  it("accepts the Component its Platform renders under that name", () => {
    expect(notFromPlatform(component("slipway-postgres"), platform)).toBeUndefined();
  });
  it("refuses one with no controlling Platform, or another kind of controller", () => {
    expect(notFromPlatform(component("slipway-postgres", []), platform)).toContain(
      "not controlled by a Platform",
    );
    const other = { ...controller, apiVersion: "example.org/v1" };
    expect(notFromPlatform(component("slipway-postgres", [other]), platform)).toContain("not controlled");
    const notController = { ...controller, controller: false };
    expect(notFromPlatform(component("slipway-postgres", [notController]), platform)).toContain(
      "not controlled",
    );
  });
  it("refuses a controller reference to a Platform that is not there (or another of its name)", () => {
    expect(notFromPlatform(component("slipway-postgres"), undefined)).toContain("does not exist");
    const replaced = { ...platform, metadata: { ...platform.metadata, uid: "p-2" } };
    expect(notFromPlatform(component("slipway-postgres"), replaced)).toContain("does not exist");
  });
  it("refuses a name the Platform does not render for the component, and unknown components", () => {
    expect(notFromPlatform(component("slipway-operator"), platform)).toContain("renders no Component");
    expect(notFromPlatform(component("slipway"), platform)).toContain("renders no Component");
    expect(notFromPlatform(component("slipway-operator", [controller], "operator"), platform)).toContain(
      "renders no Component",
    );
  });
});

describe("childAccess", () => {
  const mine = component("slipway-postgres");
  it("creates what is absent, updates what it controls, and nothing else", () => {
    expect(childAccess(mine, undefined)).toBe("create");
    const own = { metadata: { ownerReferences: [{ uid: "c-1", controller: true }] } } as never;
    expect(childAccess(mine, own)).toBe("update");
    expect(childAccess(mine, { metadata: {} })).toBe("foreign");
    const ownedNotControlled = {
      metadata: { ownerReferences: [{ uid: "c-1", controller: false }] },
    } as never;
    expect(childAccess(mine, ownedNotControlled)).toBe("foreign");
    const other = { metadata: { ownerReferences: [{ uid: "c-2", controller: true }] } } as never;
    expect(childAccess(mine, other)).toBe("foreign");
  });
  it("names every object in the way", () => {
    expect(foreignChildrenMessage([{ kind: "ServiceAccount", metadata: { name: "a" } }])).toBe(
      "ServiceAccount a already exists and is not owned by this Component: nothing is applied",
    );
    expect(
      foreignChildrenMessage([
        { kind: "Service", metadata: { name: "a" } },
        { kind: "PersistentVolumeClaim", metadata: { name: "b" } },
      ]),
    ).toContain("Service a, PersistentVolumeClaim b already exist and are not owned");
  });
});
