import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { componentsWithIngress } from "../../../src/platform/component-controller.ts";

const component = (namespace: string, name: string, ingress: boolean) =>
  ({
    metadata: { namespace, name },
    spec: ingress ? { ingress: { path: "/" } } : {},
  }) as unknown as ComponentResource;

describe("componentsWithIngress", () => {
  it("maps an IngressClass change to every Component with an Ingress, in every namespace", () => {
    const components = [
      component("a", "web", true),
      component("a", "postgres", false),
      component("b", "web", true),
    ];
    const listed: string[] = [];
    const cache = {
      list: <T extends KubeObject>(type: ResourceType) => {
        listed.push(type.kind);
        return components as unknown as T[];
      },
    };
    expect(componentsWithIngress({ metadata: { name: "nginx" } }, cache)).toEqual([
      { namespace: "a", name: "web" },
      { namespace: "b", name: "web" },
    ]);
    expect(listed).toEqual(["Component"]);
  });
});
