/** Whether an Argo workflow controller serves an argo Provider's namespace (src/pipelines/argo/workflow-controllers.ts). */
import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import {
  type DeploymentView,
  workflowControllerOf,
  workflowControllerReadiness,
} from "../../../src/pipelines/argo/workflow-controllers.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderWorkload } from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";

const deployment = (
  namespace: string,
  container: { image?: string; args?: string[]; env?: { name: string; value?: string }[] },
  available = 1,
  labels: Record<string, string> = {},
): DeploymentView => ({
  metadata: { name: "workflow-controller", namespace, labels },
  spec: { template: { spec: { containers: [container] } } },
  status: { availableReplicas: available },
});
const argoImage = "quay.io/argoproj/workflow-controller:v4.0.5";

/** The platform's workflow engine as the platform controller renders it for platform `lab` in `team`. */
function platformEngine(image?: string): DeploymentView {
  const release = findRelease("0.1.0");
  const rendered = renderComponents("lab", "team", {}, release ?? ({} as never)).find(
    (c) => c.name === "workflow-engine",
  );
  if (!rendered) throw new Error("workflow-engine not rendered");
  const component: ComponentResource = {
    apiVersion: "platform.slipway.dev/v1beta1",
    kind: "Component",
    metadata: { name: "lab-workflow-engine", namespace: "team", uid: "u", generation: 1 },
    spec: { ...rendered.spec, ...(image ? { image } : {}) },
  };
  return { ...(renderWorkload(component) as DeploymentView), status: { availableReplicas: 1 } };
}

describe("what a Deployment's workflow controller serves", () => {
  it("the platform's workflow engine serves its platform's namespace only, whatever image it runs", () => {
    expect(workflowControllerOf(platformEngine())).toEqual({
      deployment: "team/lab-workflow-engine",
      managedNamespace: "team",
      available: true,
    });
    expect(workflowControllerOf(platformEngine("mirror.example/argo/controller:1"))?.managedNamespace).toBe(
      "team",
    );
  });

  it("Argo's flags: no --namespaced → every namespace; --namespaced → --managed-namespace, else its own", () => {
    expect(workflowControllerOf(deployment("argo", { image: argoImage }))?.managedNamespace).toBeUndefined();
    expect(
      workflowControllerOf(deployment("argo", { image: argoImage, args: ["--managed-namespace", "x"] }))
        ?.managedNamespace,
    ).toBeUndefined();
    expect(
      workflowControllerOf(deployment("ml", { image: argoImage, args: ["--namespaced"] }))?.managedNamespace,
    ).toBe("ml");
    expect(
      workflowControllerOf(
        deployment("ml", { image: argoImage, args: ["--namespaced=true", "--managed-namespace=jobs"] }),
      )?.managedNamespace,
    ).toBe("jobs");
    expect(
      workflowControllerOf(
        deployment("ml", {
          image: argoImage,
          env: [
            { name: "ARGO_NAMESPACED", value: "true" },
            { name: "ARGO_MANAGED_NAMESPACE", value: "jobs" },
          ],
        }),
      )?.managedNamespace,
    ).toBe("jobs");
  });

  it("a Deployment of another image is no workflow controller", () => {
    expect(
      workflowControllerOf(deployment("ml", { image: "quay.io/argoproj/argocli:v4.0.5" })),
    ).toBeUndefined();
    expect(
      workflowControllerOf(deployment("ml", { image: "registry.example/my-workflow-controller-ui:1" })),
    ).toBeUndefined();
  });
});

describe("an argo Provider's readiness from the controllers that serve its namespace", () => {
  const setting = "SLIPWAY_ARGO_NAMESPACES";
  const controller = (managedNamespace: string | undefined, available = true) => ({
    deployment: "ml/workflow-controller",
    ...(managedNamespace ? { managedNamespace } : {}),
    available,
  });

  it("Ready when an available controller serves the namespace (namespaced to it, or cluster-wide)", () => {
    for (const c of [controller("ml"), controller(undefined)]) {
      const readiness = workflowControllerReadiness("ml", { controllers: [c], declared: [] }, setting);
      expect(readiness).toEqual({
        ready: true,
        message:
          "Argo Workflows is installed; the workflow controller ml/workflow-controller serves namespace ml",
      });
    }
  });

  it("not Ready where none serves it, naming the namespace, what serves elsewhere and what would fix it", () => {
    const none = workflowControllerReadiness("ml", { controllers: [], declared: ["slipway"] }, setting);
    expect(none.ready).toBe(false);
    expect(none.message).toContain("no Argo workflow controller serves namespace ml");
    expect(none.message).toContain(setting);
    const elsewhere = workflowControllerReadiness(
      "ml",
      { controllers: [controller("jobs")], declared: [] },
      setting,
    );
    expect(elsewhere.ready).toBe(false);
    expect(elsewhere.message).toContain("(ml/workflow-controller serves only jobs)");
  });

  it("not Ready while the controller serving it has no available replica", () => {
    const readiness = workflowControllerReadiness(
      "ml",
      { controllers: [controller("ml", false)], declared: [] },
      setting,
    );
    expect(readiness).toEqual({
      ready: false,
      message:
        "the workflow controller ml/workflow-controller serving namespace ml has no available replica: Workflows there would not start",
    });
  });

  it("Ready where the installer declares a controller elsewhere serves it (the namespace, or * for all)", () => {
    for (const declared of [["ml"], ["*"]]) {
      expect(workflowControllerReadiness("ml", { controllers: [], declared }, setting).ready).toBe(true);
    }
  });
});
