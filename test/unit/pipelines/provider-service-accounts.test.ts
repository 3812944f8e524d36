import { describe, expect, it } from "vitest";
import type { Provider } from "../../../src/apis/pipelines/provider.ts";
import {
  acceptedCondition,
  allowlistPolicy,
  eitherPolicy,
  namedServiceAccounts,
  parseServiceAccountAllowlist,
} from "../../../src/pipelines/provider-service-accounts.ts";
import { platformPipelinesAccount } from "../../../src/platform/pipelines-account.ts";

const provider = (
  spec: Partial<Provider["spec"]>,
  metadata: Partial<Provider["metadata"]> = {},
): Provider => ({
  apiVersion: "pipelines.slipway.dev/v1alpha1",
  kind: "Provider",
  metadata: { name: "argo", namespace: "ml", generation: 1, ...metadata },
  spec: { type: "argo", ...spec },
});

describe("the allowlist of Provider ServiceAccounts", () => {
  it("parses namespace/name and */name entries; anything else is refused naming the entry", () => {
    expect(parseServiceAccountAllowlist(" ml/runner, */shared ,")).toEqual(["ml/runner", "*/shared"]);
    expect(parseServiceAccountAllowlist(undefined)).toEqual([]);
    for (const bad of ["runner", "ml/", "*/*", "ml/a/b", "ML/runner"]) {
      expect(() => parseServiceAccountAllowlist(bad)).toThrow(
        `SLIPWAY_PROVIDER_SERVICE_ACCOUNTS: ${JSON.stringify(bad)} is not namespace/name or */name`,
      );
    }
  });

  it("an entry allows its name in its namespace only; */name in every namespace", () => {
    const policy = allowlistPolicy(["ml/runner", "*/shared"]);
    expect(policy(provider({}), "runner")).toBe(true);
    expect(policy(provider({}, { namespace: "team" }), "runner")).toBe(false);
    expect(policy(provider({}, { namespace: "team" }), "shared")).toBe(true);
    expect(policy(provider({}), "default")).toBe(false);
  });

  it("a Provider names spec.serviceAccount and a kfp token's ServiceAccount; ProviderAccepted names the refused field", () => {
    const kfp = provider({
      type: "kfp",
      serviceAccount: "runner",
      parameters: { auth: { serviceAccountToken: { serviceAccount: "kfp-admin" } } },
    });
    expect(namedServiceAccounts(kfp).map((n) => n.field)).toEqual([
      "spec.serviceAccount",
      "spec.parameters.auth.serviceAccountToken.serviceAccount",
    ]);
    expect(acceptedCondition(kfp, allowlistPolicy(["ml/runner"]))).toEqual({
      type: "ProviderAccepted",
      status: "False",
      reason: "ServiceAccountNotAllowed",
      message:
        "spec.parameters.auth.serviceAccountToken.serviceAccount: ServiceAccount ml/kfp-admin is not on the operator's allowlist of Provider ServiceAccounts (SLIPWAY_PROVIDER_SERVICE_ACCOUNTS)",
    });
    expect(acceptedCondition(provider({}), allowlistPolicy([])).status).toBe("True");
  });

  it("the namespace's default ServiceAccount is allowed named or omitted, for workflows and a kfp token; any other needs the allowlist", () => {
    const none = allowlistPolicy([]);
    expect(acceptedCondition(provider({}), none).status).toBe("True");
    expect(acceptedCondition(provider({ serviceAccount: "default" }), none)).toMatchObject({
      status: "True",
      reason: "Accepted",
    });
    const kfpWithDefaultToken = provider({
      type: "kfp",
      parameters: { auth: { serviceAccountToken: { serviceAccount: "default" } } },
    });
    expect(acceptedCondition(kfpWithDefaultToken, none).status).toBe("True");
    expect(acceptedCondition(provider({ serviceAccount: "runner" }), none)).toMatchObject({
      status: "False",
      reason: "ServiceAccountNotAllowed",
      message: expect.stringContaining("spec.serviceAccount: ServiceAccount ml/runner is not on"),
    });
    expect(acceptedCondition(provider({ serviceAccount: "default-admin" }), none).status).toBe("False");
  });

  it("a Platform's own Provider may name that Platform's pipelines ServiceAccount, nothing else", () => {
    const owner = {
      apiVersion: "platform.slipway.dev/v1alpha1",
      kind: "Platform",
      name: "slipway",
      uid: "u",
      controller: true,
    };
    const own = provider({}, { name: "slipway", ownerReferences: [owner] });
    const policy = eitherPolicy(allowlistPolicy([]), platformPipelinesAccount);
    expect(policy(own, "slipway-pipelines")).toBe(true);
    expect(policy(own, "slipway-api-server")).toBe(false);
    expect(policy(provider({}, { name: "other", ownerReferences: [owner] }), "slipway-pipelines")).toBe(
      false,
    );
    expect(policy(provider({}, { name: "slipway" }), "slipway-pipelines")).toBe(false);
  });
});
