import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { componentsGatedBy } from "../../../src/platform/component-controller.ts";
import { labels } from "../../../src/platform/component-objects.ts";

const component = (platform: string, name: string, dependencies: string[]) =>
  ({
    metadata: { namespace: "ns", name: `${platform}-${name}`, labels: { [labels.platform]: platform } },
    spec: { component: name, dependencies },
  }) as unknown as ComponentResource;

const components = [
  component("a", "postgres", []),
  component("a", "mlflow", ["postgres"]),
  component("a", "api-server", ["postgres"]),
  component("a", "web", ["api-server"]),
  component("b", "mlflow", ["postgres"]),
];

/** The in-memory list a cache would answer, honouring the namespace and label filters. */
const cache = {
  list: <T extends KubeObject>(
    _type: unknown,
    options: { namespace?: string; labels?: Record<string, string> } = {},
  ) =>
    components.filter(
      (c) =>
        (!options.namespace || c.metadata.namespace === options.namespace) &&
        Object.entries(options.labels ?? {}).every(([k, v]) => c.metadata.labels?.[k] === v),
    ) as unknown as T[],
};

describe("componentsGatedBy", () => {
  it("maps a Component's change to its dependents and dependencies in the same Platform only", () => {
    const names = (changed: ComponentResource) => componentsGatedBy(changed, cache).map((k) => k.name);
    expect(names(components[0] as ComponentResource)).toEqual(["a-mlflow", "a-api-server"]);
    expect(names(components[2] as ComponentResource)).toEqual(["a-postgres", "a-web"]);
    expect(names(components[3] as ComponentResource)).toEqual(["a-api-server"]);
  });

  it("maps nothing for an object without a Platform label", () => {
    expect(componentsGatedBy({ metadata: { name: "x", namespace: "ns" } }, cache)).toEqual([]);
  });
});
