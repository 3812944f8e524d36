/**
 * The operator's priority level and FlowSchema in the release bundle: named after the namespace the
 * bundle is placed in, the schema's subject the operator's ServiceAccount there and its level the
 * placed one, however the operator serves namespaces and wherever a placed bundle is moved.
 */
import { describe, expect, it } from "vitest";
import { type BundleObject, inNamespace } from "../../../src/bundle/bundle.ts";
import { flowControlKinds, operatorMatchingPrecedence } from "../../../src/bundle/flow-control.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";

// biome-ignore lint/suspicious/noExplicitAny: test drills into plain objects
type Any = any;

const flowControl = (objects: BundleObject[]) =>
  objects.filter((o) => flowControlKinds.includes(o.kind ?? "")) as Any[];

/** The precedence of the built-in `service-accounts` FlowSchema (Kubernetes' suggested configuration). */
const builtInServiceAccounts = 9000;

describe("the release bundle's API Priority and Fairness objects", () => {
  it("hold a Limited level and a FlowSchema sending every request of the operator's ServiceAccount there, named after the namespace", () => {
    const [level, schema] = flowControl(releaseBundle("ml"));
    expect(level.kind).toBe("PriorityLevelConfiguration");
    expect(level.apiVersion).toBe("flowcontrol.apiserver.k8s.io/v1");
    expect(level.metadata.name).toBe("slipway-operator-ml");
    expect(level.metadata.namespace).toBeUndefined();
    expect(level.spec.type).toBe("Limited");
    expect(level.spec.limited.limitResponse.type).toBe("Queue");

    expect(schema.kind).toBe("FlowSchema");
    expect(schema.metadata.name).toBe("slipway-operator-ml");
    expect(schema.metadata.namespace).toBeUndefined();
    expect(schema.spec.priorityLevelConfiguration).toEqual({ name: "slipway-operator-ml" });
    expect(schema.spec.distinguisherMethod).toEqual({ type: "ByUser" });
    expect(schema.spec.matchingPrecedence).toBe(operatorMatchingPrecedence);
    expect(operatorMatchingPrecedence).toBeLessThan(builtInServiceAccounts);
    expect(schema.spec.rules).toEqual([
      {
        subjects: [{ kind: "ServiceAccount", serviceAccount: { name: "slipway-operator", namespace: "ml" } }],
        resourceRules: [
          { verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] },
        ],
        nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      },
    ]);
  });

  it("are the same however the operator serves namespaces", () => {
    const own = flowControl(releaseBundle("ops"));
    expect(flowControl(releaseBundle("ops", { serves: ["team-a", "team-b"] }))).toEqual(own);
    expect(flowControl(releaseBundle("ops", { serves: "all" }))).toEqual(own);
  });

  it("move with a bundle placed before (deploy/slipway.yaml installed elsewhere), the subject and level included", () => {
    const moved = flowControl(inNamespace(releaseBundle("slipway"), "ml"));
    expect(moved).toEqual(flowControl(releaseBundle("ml")));
    expect(JSON.stringify(moved)).not.toContain("slipway-operator-slipway");
    expect(JSON.stringify(moved)).not.toContain('"namespace":"slipway"');
  });

  it("of two installs are two pairs: neither names the other's level or ServiceAccount", () => {
    const [, a] = flowControl(releaseBundle("team-a"));
    const [, b] = flowControl(releaseBundle("team-b"));
    expect(a.metadata.name).not.toBe(b.metadata.name);
    expect(a.spec.priorityLevelConfiguration.name).toBe("slipway-operator-team-a");
    expect(b.spec.rules[0].subjects[0].serviceAccount.namespace).toBe("team-b");
  });
});
