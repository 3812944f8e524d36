import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultLeaseName } from "../../../src/kube/leader.ts";
import type { ControllerSpec, ResourceType } from "../../../src/kube/types.ts";
import { deriveRbac, mergeRules, type PolicyRule, runtimePermissions } from "../../../src/operator/rbac.ts";

const type = (group: string, kind: string, plural: string, namespaced = true): ResourceType => ({
  group,
  version: "v1",
  kind,
  plural,
  namespaced,
});
const gadget = type("test.slipway.dev", "Gadget", "gadgets");
const configMap = type("", "ConfigMap", "configmaps");
const secret = type("", "Secret", "secrets");
const job = type("batch", "Job", "jobs");
const storageClass = type("storage.k8s.io", "StorageClass", "storageclasses", false);

const controller = (spec: Partial<ControllerSpec>): ControllerSpec => ({
  name: "gadget",
  for: gadget,
  reconcile: async () => undefined,
  permissions: [],
  ...spec,
});

describe("deriveRbac", () => {
  it("gives the runtime its Events and leader-election Lease and nothing cluster-wide with no controllers", () => {
    expect(deriveRbac([])).toEqual({
      namespaced: [
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        {
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          verbs: ["get", "update"],
          resourceNames: [defaultLeaseName],
        },
        { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
      ],
      cluster: [],
    });
  });

  it("reads for/owns/watches kinds, writes what permissions declare, and may update the owner's finalizers", () => {
    const rbac = deriveRbac(
      [
        controller({
          owns: [job, configMap],
          watches: [{ type: secret, map: () => [] }],
          permissions: [
            { type: gadget, subresource: "status", verbs: ["patch"] },
            { type: job, verbs: ["create", "patch", "delete"] },
            { type: configMap, verbs: ["patch", "create"] },
          ],
        }),
      ],
      [],
    );
    expect(rbac.cluster).toEqual([]);
    expect(rbac.namespaced).toEqual([
      { apiGroups: [""], resources: ["configmaps"], verbs: ["create", "get", "list", "patch", "watch"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] },
      {
        apiGroups: ["batch"],
        resources: ["jobs"],
        verbs: ["create", "delete", "get", "list", "patch", "watch"],
      },
      { apiGroups: ["test.slipway.dev"], resources: ["gadgets"], verbs: ["get", "list", "watch"] },
      { apiGroups: ["test.slipway.dev"], resources: ["gadgets/finalizers"], verbs: ["update"] },
      { apiGroups: ["test.slipway.dev"], resources: ["gadgets/status"], verbs: ["patch"] },
    ]);
  });

  it("puts only cluster-scoped kinds in the cluster rules", () => {
    const rbac = deriveRbac(
      [controller({ watches: [{ type: storageClass, map: () => [] }] })],
      runtimePermissions,
    );
    expect(rbac.cluster).toEqual([
      { apiGroups: ["storage.k8s.io"], resources: ["storageclasses"], verbs: ["get", "list", "watch"] },
    ]);
    expect(rbac.namespaced.flatMap((r) => r.resources)).not.toContain("storageclasses");
  });

  it("merges two controllers' needs on one kind and is independent of declaration order", () => {
    const a = controller({ name: "a", permissions: [{ type: configMap, verbs: ["create"] }] });
    const b = controller({ name: "b", for: configMap, permissions: [{ type: gadget, verbs: ["patch"] }] });
    expect(deriveRbac([a, b])).toEqual(deriveRbac([b, a]));
    expect(deriveRbac([a, b]).namespaced).toContainEqual({
      apiGroups: [""],
      resources: ["configmaps"],
      verbs: ["create", "get", "list", "watch"],
    });
  });
});

describe("mergeRules", () => {
  it("shares one rule between resources of a group with the same verbs", () => {
    expect(
      mergeRules([
        { type: secret, verbs: ["get"] },
        { type: configMap, verbs: ["get"] },
        { type: configMap, verbs: ["get"] },
      ]),
    ).toEqual([{ apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get"] }]);
  });
});

describe("mergeRules with resourceNames", () => {
  it("keeps a named permission in a rule of its own, merged only with the same names in any order", () => {
    expect(
      mergeRules([
        { type: secret, verbs: ["get", "delete"] },
        { type: secret, verbs: ["update"], resourceNames: ["a", "b"] },
        { type: secret, verbs: ["get"], resourceNames: ["b", "a"] },
        { type: configMap, verbs: ["get", "update"], resourceNames: ["a", "b"] },
      ]),
    ).toEqual([
      {
        apiGroups: [""],
        resources: ["configmaps", "secrets"],
        verbs: ["get", "update"],
        resourceNames: ["a", "b"],
      },
      { apiGroups: [""], resources: ["secrets"], verbs: ["delete", "get"] },
    ]);
  });

  it.each([
    [["create", "get"], "resourceNames cannot limit create"],
    [["list", "watch"], "resourceNames cannot limit list, watch"],
  ] as const)("refuses verbs %j RBAC cannot limit by name, naming them", (verbs, message) => {
    expect(() => mergeRules([{ type: secret, verbs: [...verbs], resourceNames: ["a"] }])).toThrow(
      `permission on secrets: ${message}`,
    );
  });

  it("refuses an empty resourceNames (RBAC reads it as every object)", () => {
    expect(() => mergeRules([{ type: secret, verbs: ["get"], resourceNames: [] }])).toThrow(
      "permission on secrets: resourceNames must name at least one object",
    );
  });
});

describe("token requests by the Provider ServiceAccount allowlist's names", () => {
  const serviceAccount = type("", "ServiceAccount", "serviceaccounts");
  const tokens = controller({
    permissions: [{ type: serviceAccount, subresource: "token", verbs: ["create"] }],
  });
  const tokenRules = (allowlist?: string[]) =>
    deriveRbac([tokens], [], allowlist).namespaced.filter((rule) =>
      rule.resources.includes("serviceaccounts/token"),
    );

  it("names each allowlisted ServiceAccount once (namespace/name and */name), sorted", () => {
    expect(tokenRules(["team-a/runner", "*/kfp-client", "*/runner"])).toEqual([
      {
        apiGroups: [""],
        resources: ["serviceaccounts/token"],
        verbs: ["create"],
        resourceNames: ["kfp-client", "runner"],
      },
    ]);
  });

  it("grants no token request without an allowlist", () => {
    expect(tokenRules()).toEqual([]);
    expect(tokenRules([])).toEqual([]);
  });

  it("accepts a named create of a subresource (its object is in the URL), not of a top-level object", () => {
    expect(
      mergeRules([{ type: serviceAccount, subresource: "token", verbs: ["create"], resourceNames: ["a"] }]),
    ).toHaveLength(1);
    expect(() => mergeRules([{ type: serviceAccount, verbs: ["create"], resourceNames: ["a"] }])).toThrow(
      "permission on serviceaccounts: resourceNames cannot limit create",
    );
  });
});

describe("mergeRules (property)", () => {
  const groups = ["", "apps", "test.slipway.dev"];
  const plurals = ["configmaps", "secrets", "gadgets", "deployments"];
  const verbs = ["get", "list", "watch", "create", "update", "patch", "delete"] as const;
  const permission = fc.record({
    group: fc.constantFrom(...groups),
    plural: fc.constantFrom(...plurals),
    subresource: fc.option(fc.constantFrom("status", "finalizers"), { nil: undefined }),
    verbs: fc.subarray([...verbs], { minLength: 1 }),
  });
  const grants = (rules: PolicyRule[]) =>
    new Set(
      rules.flatMap((r) =>
        r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}|${res}|${v}`))),
      ),
    );

  it("grants exactly the declared (group, resource, verb) triples, once each, in a stable order", () => {
    fc.assert(
      fc.property(fc.array(permission, { maxLength: 12 }), (declared) => {
        const permissions = declared.map((p) => ({
          type: type(p.group, "K", p.plural),
          verbs: p.verbs,
          ...(p.subresource ? { subresource: p.subresource } : {}),
        }));
        const rules = mergeRules(permissions);
        const expected = new Set(
          declared.flatMap((p) =>
            p.verbs.map(
              (v) => `${p.group}|${p.subresource ? `${p.plural}/${p.subresource}` : p.plural}|${v}`,
            ),
          ),
        );
        expect(grants(rules)).toEqual(expected);
        const pairs = rules.flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}|${res}`));
        expect(new Set(pairs).size).toBe(pairs.length);
        expect(mergeRules([...permissions].reverse())).toEqual(rules);
      }),
    );
  });
});
