import type { V1Namespace, V1NamespaceCondition } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { stuckResources, testNamespaceLabel } from "../support/namespace-janitor.ts";

const deletedAt = Date.parse("2026-12-07T14:00:00Z");
const stuck = (
  overrides: { labels?: Record<string, string>; conditions?: V1NamespaceCondition[] } = {},
): V1Namespace => ({
  metadata: {
    name: "ib-3a12e5ab",
    labels: overrides.labels ?? { [testNamespaceLabel]: "true" },
    deletionTimestamp: new Date(deletedAt),
  },
  status: {
    phase: "Terminating",
    conditions: overrides.conditions ?? [
      {
        type: "NamespaceContentRemaining",
        status: "True",
        message:
          "Some resources are remaining: components.platform.slipway.dev has 7 resource instances, platforms.platform.slipway.dev has 1 resource instances",
      },
      {
        type: "NamespaceFinalizersRemaining",
        status: "True",
        message:
          "Some content in the namespace has finalizers remaining: platform.slipway.dev/inventory in 7 resource instances, platform.slipway.dev/ordered-teardown in 1 resource instances",
      },
    ],
  },
});

describe("the test run's namespace janitor", () => {
  it("names the custom resources holding a test namespace that has been Terminating past the grace", () => {
    expect(stuckResources(stuck(), deletedAt + 31_000, 30_000)).toEqual([
      "components.platform.slipway.dev",
      "platforms.platform.slipway.dev",
    ]);
  });

  it("leaves a namespace within the grace, one the tests did not label, and one held by no finalizer", () => {
    expect(stuckResources(stuck(), deletedAt + 29_000, 30_000)).toEqual([]);
    expect(stuckResources(stuck({ labels: {} }), deletedAt + 31_000, 30_000)).toEqual([]);
    const contentOnly = stuck({
      conditions: [
        {
          type: "NamespaceContentRemaining",
          status: "True",
          message: "Some resources are remaining: pods. has 1 resource instances",
        },
        {
          type: "NamespaceFinalizersRemaining",
          status: "False",
          message: "All content-preserving finalizers finished",
        },
      ],
    });
    expect(stuckResources(contentOnly, deletedAt + 31_000, 30_000)).toEqual([]);
    const active: V1Namespace = { metadata: { name: "t-1", labels: { [testNamespaceLabel]: "true" } } };
    expect(stuckResources(active, deletedAt + 31_000, 30_000)).toEqual([]);
  });
});
