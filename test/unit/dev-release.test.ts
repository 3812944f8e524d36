/**
 * The dev plane as a release install plus teams (src/dev/release-install.ts, src/dev/team.ts,
 * src/dev/dev-builds.ts, src/dev/real-node/config.ts): the pure parts.
 */
import { describe, expect, it } from "vitest";
import { releaseBundle } from "../../src/bundle/release.ts";
import { devBuilds, devOperatorBuildsConfig } from "../../src/dev/dev-builds.ts";
import { containerdConfig, realNodePaths, registryHostsToml } from "../../src/dev/real-node/config.ts";
import { devReleaseObjects, webhookConfigurationNames } from "../../src/dev/release-install.ts";
import { providerAllowance, teamMemberRules, teamObjects } from "../../src/dev/team.ts";

// biome-ignore lint/suspicious/noExplicitAny: reads of rendered objects
type Any = any;

describe("devReleaseObjects", () => {
  const objects = devReleaseObjects("slipway", 40443);

  it("is the release bundle serving every namespace, without the objects that run the operator in a pod", () => {
    const kinds = objects.map((o) => o.kind);
    expect(kinds).not.toContain("Deployment");
    expect(kinds).not.toContain("Service");
    const release = releaseBundle("slipway", { serves: "all" }).filter(
      (o) => !["Deployment", "Service"].includes(o.kind ?? ""),
    );
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(
      release.map((o) => `${o.kind}/${o.metadata?.name}`),
    );
    // the operator's rights are a ClusterRole (every namespace), bound to its ServiceAccount
    const binding = objects.find(
      (o) => o.kind === "ClusterRoleBinding" && o.metadata?.name === "slipway-operator-slipway",
    ) as Any;
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "slipway-operator", namespace: "slipway" },
    ]);
  });

  it("every webhook is called by URL on the local operator's port, with the release's path", () => {
    const configurations = objects.filter((o) => o.kind === "ValidatingWebhookConfiguration") as Any[];
    expect(webhookConfigurationNames(objects)).toEqual(configurations.map((c) => c.metadata.name));
    expect(configurations.length).toBeGreaterThan(0);
    const released = releaseBundle("slipway", { serves: "all" }).filter(
      (o) => o.kind === "ValidatingWebhookConfiguration",
    ) as Any[];
    for (const [index, configuration] of configurations.entries()) {
      for (const [i, webhook] of configuration.webhooks.entries()) {
        const path = released[index].webhooks[i].clientConfig.service.path;
        expect(webhook.clientConfig).toEqual({ url: `https://127.0.0.1:40443${path}` });
        expect(webhook.rules).toEqual(released[index].webhooks[i].rules);
      }
    }
  });
});

describe("dev's registry and S3 for teams", () => {
  it("listen on the real node's bridge when there is one; images under each namespace's prefix", () => {
    const onBridge = devBuilds("/d", { registry: 5001, s3: 5002, s3Console: 5003, host: "10.233.0.1" });
    expect(onBridge.registry).toBe("10.233.0.1:5001");
    expect(onBridge.s3Endpoint).toBe("http://10.233.0.1:5002");
    expect(devOperatorBuildsConfig("/d", onBridge, true).tenancy.repositoryPrefix).toBe("{namespace}/");
    const local = devBuilds("/d", { registry: 5001, s3: 5002, s3Console: 5003 });
    expect(local.registry).toBe("127.0.0.1:5001");
    expect(devOperatorBuildsConfig("/d", local, false).tenancy.repositoryPrefix).toBe("{namespace}/");
  });

  it("the real node's containerd pulls from dev's registry over plain HTTP", () => {
    expect(containerdConfig("/d", "registry.k8s.io/pause:3.10")).toContain(
      `[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "${realNodePaths("/d").registryHosts}"`,
    );
    expect(registryHostsToml("10.233.0.1:5001")).toBe(
      'server = "http://10.233.0.1:5001"\n\n[host."http://10.233.0.1:5001"]\n  capabilities = ["pull", "resolve"]\n',
    );
  });
});

describe("a team's onboarding", () => {
  const objects = teamObjects("team-b", {
    accessKeyId: "slipway-dev",
    secretAccessKey: "s3cr3t-value-0123456789",
  });

  it("its member may manage builds and pipelines and nothing on Secrets", () => {
    for (const rule of teamMemberRules) expect(rule.resources).not.toContain("secrets");
    for (const rule of teamMemberRules)
      expect(rule.resources?.some((r) => r.startsWith("serviceaccounts"))).toBe(false);
    expect(teamMemberRules.find((r) => r.resources?.includes("providers"))?.verbs).toEqual([
      "get",
      "list",
      "watch",
    ]);
    const binding = objects.find((o) => o.kind === "RoleBinding") as Any;
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "member", namespace: "team-b" }]);
    expect(objects.find((o) => o.kind === "Secret")?.metadata).toEqual({
      name: "slipway-builds-s3",
      namespace: "team-b",
    });
  });

  it("the platform's Provider gets the team in allowedNamespaces, and nothing else of its spec", () => {
    expect(providerAllowance({ namespace: "slipway", name: "slipway" }, "team-b")).toMatchObject({
      metadata: { name: "slipway", namespace: "slipway" },
      spec: { allowedNamespaces: ["team-b"] },
    });
    expect(
      Object.keys(providerAllowance({ namespace: "slipway", name: "slipway" }, "team-b").spec as object),
    ).toEqual(["allowedNamespaces"]);
  });
});
