/** The rendered NetworkPolicies of a default platform are accepted by the real API server (server-side dry-run). */
import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderNetworkPolicies } from "../../../src/platform/network-policies.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

describe("NetworkPolicies", () => {
  it("every component's policy passes the API server's validation (dryRun=All)", async () => {
    const namespace = await testNamespace("netpol");
    const release = findRelease("0.2.0");
    if (!release) throw new Error("release 0.2.0 missing");
    const components: ComponentResource[] = renderComponents("slipway", namespace, {}, release).map((c) => ({
      apiVersion: "platform.slipway.dev/v1beta1",
      kind: "Component",
      metadata: { name: c.objectName, namespace, uid: "00000000-0000-0000-0000-000000000001" },
      spec: c.spec,
    }));
    const rest = new RestClient(adminConfig());
    try {
      const policies = renderNetworkPolicies(components);
      expect(policies).toHaveLength(components.length);
      for (const policy of policies) {
        const accepted = await rest.request<{ spec: unknown }>(
          "POST",
          `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`,
          { body: policy, query: { dryRun: "All" } },
        );
        // the API server leaves out an empty rule list (admit nobody)
        const expected = policy.spec.ingress.length ? policy.spec : { ...policy.spec, ingress: undefined };
        expect(accepted.spec).toEqual(expected);
      }
    } finally {
      rest.close();
    }
  });
});
