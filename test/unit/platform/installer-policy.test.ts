/** The installer's policy flags of `slipway install`, and what `update` reads back from the operator. */
import { describe, expect, it } from "vitest";
import { releaseBundle } from "../../../src/bundle/release.ts";
import {
  installerPolicyFromEnv,
  installerPolicyFromFlags,
} from "../../../src/cli/platform/installer-policy.ts";
import { UserError } from "../../../src/cli/run.ts";

const operatorEnv = (objects: ReturnType<typeof releaseBundle>) => {
  const deployment = objects.find((object) => object.kind === "Deployment") as {
    spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
  };
  return deployment.spec.template.spec.containers[0]?.env ?? [];
};

describe("installer policy", () => {
  const flags = {
    providerServiceAccounts: "ml/runner,*/pipeline-runner",
    outboundAllow: "10.96.0.0/12, KFP.internal",
    outboundDeny: "10.244.0.0/16,192.168.0.0/24",
    ambientCredentialsNamespaces: "ml",
  };

  it("turns the flags into the operator's settings, rendered into its environment, and reads them back", () => {
    const policy = installerPolicyFromFlags(flags);
    expect(policy).toEqual({
      providerServiceAccounts: ["ml/runner", "*/pipeline-runner"],
      outboundAllow: ["10.96.0.0/12", "kfp.internal"],
      outboundDeny: ["10.244.0.0/16", "192.168.0.0/24"],
      ambientCredentialsNamespaces: ["ml"],
    });
    const env = operatorEnv(releaseBundle("slipway", policy));
    expect(env).toEqual(
      expect.arrayContaining([
        { name: "SLIPWAY_PROVIDER_SERVICE_ACCOUNTS", value: "ml/runner,*/pipeline-runner" },
        { name: "SLIPWAY_OUTBOUND_ALLOW", value: "10.96.0.0/12,kfp.internal" },
        { name: "SLIPWAY_OUTBOUND_DENY", value: "10.244.0.0/16,192.168.0.0/24" },
        { name: "SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES", value: "ml" },
      ]),
    );
    expect(installerPolicyFromEnv(env)).toEqual(policy);
    expect(installerPolicyFromEnv(operatorEnv(releaseBundle("slipway")))).toEqual({});
    expect(installerPolicyFromFlags({})).toEqual({});
  });

  it.each([
    [{ outboundAllow: "10.0.0.0/33" }, '--outbound-allow: "10.0.0.0/33" is not a host or a CIDR'],
    [{ outboundDeny: "kfp.internal" }, '--outbound-deny: "kfp.internal" is not a CIDR'],
    [
      { ambientCredentialsNamespaces: "ML_team" },
      '--ambient-credentials-namespaces: "ml_team" is not a namespace or *',
    ],
    [
      { providerServiceAccounts: "runner" },
      '--provider-service-accounts: "runner" is not namespace/name or */name (a ServiceAccount a Provider may name)',
    ],
  ])("refuses %j naming the flag and the entry", (given, message) => {
    expect(() => installerPolicyFromFlags(given)).toThrow(UserError);
    expect(() => installerPolicyFromFlags(given)).toThrow(message);
  });
});
