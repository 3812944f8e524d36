import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { inNamespace } from "../../../src/bundle/bundle.ts";
import { apiServerBinding, grantsFor } from "../../../src/bundle/grants.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { apiServerServiceAccount } from "../../../src/platform/api-server-rbac.ts";
import { findRelease, ownVersion } from "../../../src/platform/catalog.ts";
import { renderServiceAccount, renderWorkload } from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";

const release = findRelease("0.1.0");
if (!release) throw new Error("release 0.1.0 missing");

const resources = renderComponents("lab", "ns", {}, release).map(
  (c): ComponentResource => ({
    apiVersion: "platform.slipway.dev/v1beta1",
    kind: "Component",
    metadata: { name: c.objectName, namespace: "ns", uid: `u-${c.name}`, generation: 1 },
    spec: c.spec,
  }),
);

describe("the api-server's identity (TokenReview as its own ServiceAccount)", () => {
  it("only the api-server's and the workflow engine's pods run as their own ServiceAccount, which its Component owns", () => {
    for (const component of resources) {
      const pod = renderWorkload(component).spec?.template.spec;
      const account = renderServiceAccount(component);
      const name = component.spec.component;
      if (name === "api-server" || name === "workflow-engine") {
        if (name === "api-server") expect(pod?.serviceAccountName).toBe(apiServerServiceAccount("lab"));
        expect(pod?.serviceAccountName).toBe(`lab-${name}`);
        expect(account?.metadata).toMatchObject({ name: `lab-${name}`, namespace: "ns" });
        expect(account?.metadata?.ownerReferences?.[0]).toMatchObject({
          uid: `u-${name}`,
          controller: true,
        });
      } else {
        expect(pod?.serviceAccountName, component.spec.component).toBeUndefined();
        expect(account).toBeUndefined();
      }
    }
  });

  it("binds that ServiceAccount to system:auth-delegator, named after the install namespace", () => {
    const [placed] = inNamespace([apiServerBinding("lab", "0.1.0")], "ml");
    expect(placed).toMatchObject({
      kind: "ClusterRoleBinding",
      metadata: { name: "lab-api-server-ml" },
      roleRef: { kind: "ClusterRole", name: "system:auth-delegator" },
      subjects: [{ kind: "ServiceAccount", name: "lab-api-server", namespace: "ml" }],
    });
    expect(placed?.metadata?.namespace).toBeUndefined();
  });

  it("the release bundle grants it to the default platform's api-server", () => {
    const bindings = releaseBundle("ml").filter((o) => o.kind === "ClusterRoleBinding");
    expect(bindings.map((b) => b.metadata?.name).sort()).toEqual([
      "slipway-api-server-ml",
      "slipway-operator-ml",
      "slipway-operator-ops-reviews-ml",
    ]);
    const operator = bindings.find((b) => b.metadata?.name === "slipway-operator-ml");
    expect(operator?.roleRef).toMatchObject({ kind: "ClusterRole", name: "slipway-operator-ml" });
  });

  it("a bundle for another platform name grants that platform's api-server instead", () => {
    const bindings = releaseBundle("ml", { grants: grantsFor("lab") }).filter(
      (o) => o.kind === "ClusterRoleBinding",
    );
    expect(bindings.map((b) => b.metadata?.name).sort()).toEqual([
      "lab-api-server-ml",
      "slipway-operator-ml",
      "slipway-operator-ops-reviews-ml",
    ]);
    expect(bindings.find((b) => b.metadata?.name === "lab-api-server-ml")?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/component": "api-server",
      "app.kubernetes.io/version": ownVersion,
    });
  });
});
