import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { defineKind } from "../../../src/apis/kind.ts";
import {
  type BundleObject,
  type BundleOptions,
  bundleFor,
  defaultResources,
  inNamespace,
} from "../../../src/bundle/bundle.ts";
import { splitImage } from "../../../src/bundle/helm.ts";
import { webhookArgs } from "../../../src/bundle/webhook.ts";
import type { ResourceType } from "../../../src/kube/types.ts";

const gadget = defineKind({
  group: "test.slipway.dev",
  version: "v1alpha1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  shortNames: ["gd"],
  scope: "Namespaced",
  description: "A gadget.",
  spec: Type.Object({ size: Type.Integer() }),
  status: Type.Object({}),
  printerColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
});
const gadgetType: ResourceType = {
  group: gadget.group,
  version: "v1alpha1",
  kind: "Gadget",
  plural: "gadgets",
  namespaced: true,
};
const nodeType: ResourceType = { group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false };

const options = (overrides: Partial<BundleOptions> = {}): BundleOptions => ({
  kinds: [gadget],
  controllers: [{ name: "gadget", for: gadgetType, reconcile: async () => undefined, permissions: [] }],
  image: "example.org/slipway:1.2.3",
  imagePullPolicy: "IfNotPresent",
  replicas: 1,
  logLevel: "info",
  resources: defaultResources,
  version: "1.2.3",
  ...overrides,
});

/** A controller that reads a cluster-scoped kind (so the bundle has a ClusterRole). */
const readingNodes = options({
  controllers: [
    {
      name: "g",
      for: gadgetType,
      watches: [{ type: nodeType, map: () => [] }],
      reconcile: async () => undefined,
      permissions: [],
    },
  ],
});

const find = (objects: BundleObject[], kind: string) => objects.filter((o) => o.kind === kind);
// biome-ignore lint/suspicious/noExplicitAny: test drills into plain objects
type Any = any;

/** The admission webhook's: the caBundle of the bundle's own configurations (by name), reviews as the requester. */
const webhookClusterRules = (namespace: string) => [
  {
    apiGroups: ["admissionregistration.k8s.io"],
    resources: ["validatingwebhookconfigurations"],
    verbs: ["get", "patch"],
    resourceNames: [
      `slipway-builds-overrides-${namespace}`,
      `slipway-imagebuilds-${namespace}`,
      `slipway-providers-${namespace}`,
    ],
  },
  { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
];

describe("bundleFor", () => {
  const objects = bundleFor("ml", options());
  const deployment = find(objects, "Deployment")[0] as Any;
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it("holds the Namespace and CRDs first, then the ServiceAccount, RBAC, Deployment, Services, the webhook configurations (ImageBuilds, Providers, the builds override) and the operator's priority level and FlowSchema, all in the namespace", () => {
    expect(objects.map((o) => o.kind)).toEqual([
      "Namespace",
      "CustomResourceDefinition",
      "ServiceAccount",
      "Role",
      "RoleBinding",
      "ClusterRole",
      "ClusterRoleBinding",
      "Deployment",
      "Service",
      "Service",
      "ValidatingWebhookConfiguration",
      "ValidatingWebhookConfiguration",
      "ValidatingWebhookConfiguration",
      "PriorityLevelConfiguration",
      "FlowSchema",
    ]);
    expect(objects[0]?.metadata?.name).toBe("ml");
    const clusterWide = [
      "CustomResourceDefinition",
      "ClusterRole",
      "ClusterRoleBinding",
      "ValidatingWebhookConfiguration",
      "PriorityLevelConfiguration",
      "FlowSchema",
    ];
    for (const object of objects.slice(1))
      expect(object.metadata?.namespace).toBe(clusterWide.includes(object.kind ?? "") ? undefined : "ml");
  });

  it("runs the operator non-root, read-only, without privilege escalation or capabilities, under RuntimeDefault seccomp", () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
    expect(container.resources).toEqual(defaultResources);
    expect(container.args).toEqual([
      "operator",
      "--namespaces=$(POD_NAMESPACE)",
      "--leader-elect",
      "--metrics-port=8080",
      "--health-port=8080",
      "--ops-bind-address=0.0.0.0",
      "--ops-require-token",
      ...webhookArgs,
    ]);
    expect(container.env).toContainEqual({
      name: "POD_NAMESPACE",
      valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
    });
    expect(container.image).toBe("example.org/slipway:1.2.3");
    expect(pod.serviceAccountName).toBe("slipway-operator");
  });

  it("passes the installer's outbound policy to the operator (only the lists that have entries)", () => {
    const env = (o: BundleOptions) =>
      (find(bundleFor("ml", o), "Deployment")[0] as Any).spec.template.spec.containers[0].env
        .map((e: Any) => e.name)
        .filter((name: string) => /OUTBOUND|AMBIENT/.test(name));
    expect(env(options())).toEqual([]);
    const set = options({
      outboundAllow: ["kfp.internal", "10.96.0.0/12"],
      outboundDeny: ["10.244.0.0/16"],
      ambientCredentialsNamespaces: ["ml"],
    });
    const container = (find(bundleFor("ml", set), "Deployment")[0] as Any).spec.template.spec.containers[0];
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: "SLIPWAY_OUTBOUND_ALLOW", value: "kfp.internal,10.96.0.0/12" },
        { name: "SLIPWAY_OUTBOUND_DENY", value: "10.244.0.0/16" },
        { name: "SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES", value: "ml" },
      ]),
    );
    expect(env(options({ outboundAllow: ["127.0.0.1"] }))).toEqual(["SLIPWAY_OUTBOUND_ALLOW"]);
  });

  it("probes /healthz and /readyz on the port the metrics Service targets", () => {
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    const service = find(objects, "Service")[0] as Any;
    expect(service.spec.ports[0].targetPort).toBe("http");
    expect(container.ports.map((p: Any) => p.name)).toContain("http");
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
  });

  it("binds the Role to the ServiceAccount; the only cluster-wide RBAC is the admission webhook's when no cluster-scoped kind is used", () => {
    const binding = find(objects, "RoleBinding")[0] as Any;
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: "slipway-operator",
    });
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "slipway-operator", namespace: "ml" }]);
    expect((find(objects, "ClusterRole")[0] as Any).rules).toEqual(webhookClusterRules("ml"));
  });

  it("adds a ClusterRole(Binding) named after the namespace only for cluster-scoped kinds", () => {
    const withNodes = bundleFor("ml", readingNodes);
    const clusterRole = find(withNodes, "ClusterRole")[0] as Any;
    expect(clusterRole.metadata.name).toBe("slipway-operator-ml");
    expect(clusterRole.rules).toEqual([
      { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
      ...webhookClusterRules("ml"),
    ]);
    const binding = find(withNodes, "ClusterRoleBinding")[0] as Any;
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "slipway-operator", namespace: "ml" }]);
    expect(binding.roleRef.name).toBe("slipway-operator-ml");
    expect(inNamespace(bundleFor(undefined, options()), "ml")).toEqual(bundleFor("ml", options()).slice(1));
  });

  it("moves a bundle placed before (deploy/slipway.yaml, in slipway) into another namespace as if placed there at once", () => {
    expect(inNamespace(bundleFor("slipway", readingNodes), "ml")).toEqual(bundleFor("ml", readingNodes));
  });

  it("grants rights on webhook configurations only by the names of the bundle's own, wherever it is placed and however it serves", () => {
    const bundles = [
      bundleFor("ml", options()),
      bundleFor("ml", options({ serves: "all" })),
      bundleFor("ml", options({ serves: ["team-a"] })),
      inNamespace(bundleFor("slipway", options()), "ml"),
    ];
    for (const bundle of bundles) {
      const own = bundle
        .filter(
          (o) => o.kind === "ValidatingWebhookConfiguration" || o.kind === "MutatingWebhookConfiguration",
        )
        .map((o) => o.metadata?.name)
        .sort();
      expect(own).toEqual(["slipway-builds-overrides-ml", "slipway-imagebuilds-ml", "slipway-providers-ml"]);
      const rules = bundle
        .filter((o) => o.kind === "Role" || o.kind === "ClusterRole")
        .flatMap((o) => o.rules as Any[])
        .filter((rule) => rule.resources.some((r: string) => /webhookconfigurations/.test(r)));
      expect(rules).toEqual([
        {
          apiGroups: ["admissionregistration.k8s.io"],
          resources: ["validatingwebhookconfigurations"],
          verbs: ["get", "patch"],
          resourceNames: own,
        },
      ]);
    }
  });

  it("serving a list of namespaces: a Role in each, the leader Lease's Role in its own, and the list as flags", () => {
    const placed = bundleFor("ops", options({ serves: ["team-a", "team-b"] }));
    const roles = find(placed, "Role") as Any[];
    expect(roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual([
      "ops/slipway-operator-leader",
      "team-a/slipway-operator",
      "team-b/slipway-operator",
    ]);
    expect(roles[0].rules).toEqual([
      // its own namespace's Secrets: only the webhook's by name (create cannot be limited by name)
      { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
      {
        apiGroups: [""],
        resources: ["secrets"],
        verbs: ["get", "update"],
        resourceNames: ["slipway-operator-webhook-tls"],
      },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        verbs: ["get", "update"],
        resourceNames: ["slipway-operator"],
      },
    ]);
    expect(roles[1].rules).toContainEqual({
      apiGroups: [gadget.group],
      resources: ["gadgets"],
      verbs: ["get", "list", "watch"],
    });
    for (const binding of find(placed, "RoleBinding") as Any[]) {
      expect(binding.roleRef.name).toBe(binding.metadata.name);
      expect(binding.subjects).toEqual([
        { kind: "ServiceAccount", name: "slipway-operator", namespace: "ops" },
      ]);
    }
    const container = (find(placed, "Deployment")[0] as Any).spec.template.spec.containers[0];
    expect(container.args).toContain("--namespaces=team-a,team-b");
    expect((find(placed, "ClusterRole")[0] as Any).rules).toEqual(webhookClusterRules("ops"));
  });

  it("serving all namespaces: one ClusterRole with every rule, bound to the operator, and --all-namespaces", () => {
    const placed = bundleFor("ops", options({ serves: "all" }));
    expect(find(placed, "Role")).toEqual([]);
    expect(find(placed, "RoleBinding")).toEqual([]);
    const clusterRole = find(placed, "ClusterRole")[0] as Any;
    expect(clusterRole.metadata.name).toBe("slipway-operator-ops");
    expect(clusterRole.rules).toContainEqual({
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["get", "update"],
      resourceNames: ["slipway-operator"],
    });
    const binding = find(placed, "ClusterRoleBinding")[0] as Any;
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "slipway-operator", namespace: "ops" },
    ]);
    const container = (find(placed, "Deployment")[0] as Any).spec.template.spec.containers[0];
    expect(container.args).toContain("--all-namespaces");
  });

  it("leaves namespaced objects without a namespace when none is given", () => {
    for (const object of bundleFor(undefined, options())) expect(object.metadata?.namespace).toBeUndefined();
  });
});

describe("the builds override's webhook", () => {
  const conditionsOf = (bundle: ReturnType<typeof bundleFor>) =>
    (bundle.find((o) => o.metadata?.name?.startsWith("slipway-builds-overrides-")) as Any).webhooks[0]
      .matchConditions as { name: string; expression: string }[];

  it("skips the writes of exactly the operator's ServiceAccount of the namespace it is placed in (its own override names the Secrets it generated)", () => {
    for (const bundle of [bundleFor("ml", options()), inNamespace(bundleFor("slipway", options()), "ml")])
      expect(conditionsOf(bundle).find((c) => c.name === "not-the-operator")?.expression).toBe(
        "request.userInfo.username != 'system:serviceaccount:ml:slipway-operator'",
      );
  });
});

describe("splitImage", () => {
  it("splits at the tag's colon, not a registry port's", () => {
    expect(splitImage("registry.local:5000/slipway:1.2.3")).toEqual({
      repository: "registry.local:5000/slipway",
      tag: "1.2.3",
    });
    expect(splitImage("ghcr.io/slipway-dev/slipway:0.1.0")).toEqual({
      repository: "ghcr.io/slipway-dev/slipway",
      tag: "0.1.0",
    });
  });

  it("refuses an image without a tag", () => {
    expect(() => splitImage("registry.local:5000/slipway")).toThrow(
      'image "registry.local:5000/slipway" must be repository:tag',
    );
  });
});
