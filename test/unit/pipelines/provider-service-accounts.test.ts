import { describe, expect, it } from "vitest";
import type { Provider } from "../../../src/apis/pipelines/provider.ts";
import type { Cache, ResourceType } from "../../../src/kube/types.ts";
import {
  acceptedCondition,
  allowlistPolicy,
  eitherPolicy,
  namedServiceAccounts,
  parseServiceAccountAllowlist,
} from "../../../src/pipelines/provider-service-accounts.ts";
import { platformPipelinesAccount } from "../../../src/platform/pipelines-account.ts";

/** A cache holding `platforms` (none by default). */
const cacheOf = (...platforms: { name: string; uid: string }[]): Pick<Cache, "get"> => ({
  get: <T>(type: ResourceType, key: { namespace?: string; name: string }) =>
    type.kind === "Platform"
      ? (platforms
          .filter((p) => p.name === key.name && key.namespace === "ml")
          .map((p) => ({ metadata: { name: p.name, namespace: "ml", uid: p.uid } }))[0] as T | undefined)
      : undefined,
});
const noCache = cacheOf();

const provider = (
  spec: Partial<Provider["spec"]>,
  metadata: Partial<Provider["metadata"]> = {},
): Provider => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
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
    expect(policy(provider({}), "runner", noCache)).toBe(true);
    expect(policy(provider({}, { namespace: "team" }), "runner", noCache)).toBe(false);
    expect(policy(provider({}, { namespace: "team" }), "shared", noCache)).toBe(true);
    expect(policy(provider({}), "default", noCache)).toBe(false);
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
    expect(acceptedCondition(kfp, allowlistPolicy(["ml/runner"]), noCache)).toEqual({
      type: "ProviderAccepted",
      status: "False",
      reason: "ServiceAccountNotAllowed",
      message:
        "spec.parameters.auth.serviceAccountToken.serviceAccount: ServiceAccount ml/kfp-admin is not on the operator's allowlist of Provider ServiceAccounts (SLIPWAY_PROVIDER_SERVICE_ACCOUNTS)",
    });
    expect(acceptedCondition(provider({}), allowlistPolicy([]), noCache).status).toBe("True");
  });

  it("the namespace's default ServiceAccount is allowed named or omitted, for workflows and a kfp token; any other needs the allowlist", () => {
    const none = allowlistPolicy([]);
    expect(acceptedCondition(provider({}), none, noCache).status).toBe("True");
    expect(acceptedCondition(provider({ serviceAccount: "default" }), none, noCache)).toMatchObject({
      status: "True",
      reason: "Accepted",
    });
    const kfpWithDefaultToken = provider({
      type: "kfp",
      parameters: { auth: { serviceAccountToken: { serviceAccount: "default" } } },
    });
    expect(acceptedCondition(kfpWithDefaultToken, none, noCache).status).toBe("True");
    expect(acceptedCondition(provider({ serviceAccount: "runner" }), none, noCache)).toMatchObject({
      status: "False",
      reason: "ServiceAccountNotAllowed",
      message: expect.stringContaining("spec.serviceAccount: ServiceAccount ml/runner is not on"),
    });
    expect(acceptedCondition(provider({ serviceAccount: "default-admin" }), none, noCache).status).toBe(
      "False",
    );
  });

  it("a Platform's own Provider may name that Platform's pipelines ServiceAccount, nothing else; the reference's uid must be that Platform's", () => {
    const owner = {
      apiVersion: "platform.slipway.dev/v1beta1",
      kind: "Platform",
      name: "slipway",
      uid: "u",
      controller: true,
    };
    const own = provider({}, { name: "slipway", ownerReferences: [owner] });
    const policy = eitherPolicy(allowlistPolicy([]), platformPipelinesAccount);
    const platform = cacheOf({ name: "slipway", uid: "u" });
    expect(policy.reads?.map((type) => type.kind)).toEqual(["Platform"]);
    expect(policy(own, "slipway-pipelines", platform)).toBe(true);
    expect(policy(own, "slipway-api-server", platform)).toBe(false);
    expect(
      policy(provider({}, { name: "other", ownerReferences: [owner] }), "slipway-pipelines", platform),
    ).toBe(false);
    expect(policy(provider({}, { name: "slipway" }), "slipway-pipelines", platform)).toBe(false);
    // a reference copied with the Platform's kind and name but another uid, or to a Platform that is not there
    expect(policy(own, "slipway-pipelines", cacheOf({ name: "slipway", uid: "another" }))).toBe(false);
    expect(policy(own, "slipway-pipelines", noCache)).toBe(false);
  });
});
