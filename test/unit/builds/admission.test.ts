import { describe, expect, it } from "vitest";
import { matchConditions } from "../../../src/builds/admission/configuration.ts";
import { secretReferences, secretRefusal } from "../../../src/builds/admission/secret-references.ts";
import { type BundleObject, inNamespace } from "../../../src/bundle/bundle.ts";
import { webhookArgs, webhookConfigurations } from "../../../src/bundle/webhook.ts";
import {
  certificateFacts,
  issueServingCertificate,
  nextCaBundle,
  rotationReason,
  splitPem,
} from "../../../src/webhook/certificates.ts";
import { firstUnreadable, secretsToReview } from "../../../src/webhook/secret-references.ts";

const build = {
  spec: {
    project: "p",
    name: "n",
    version: "v",
    artifactUri: "s3://b/k",
    buildArgs: [
      { name: "A", value: "1" },
      { name: "TOKEN", valueFrom: { secretKeyRef: { name: "pip", key: "token" } } },
      { name: "OTHER", valueFrom: { secretKeyRef: { name: "pip", key: "other" } } },
      { name: "KEY", valueFrom: { secretKeyRef: { name: "ssh", key: "id" } } },
    ],
  },
};

describe("the secret build argument rule", () => {
  it("names every argument taking a Secret with its index, and asks about each Secret once", () => {
    const references = secretReferences(build);
    expect(references.map((r) => [r.index, r.argument, r.secret])).toEqual([
      [1, "TOKEN", "pip"],
      [2, "OTHER", "pip"],
      [3, "KEY", "ssh"],
    ]);
    expect(secretsToReview(references)).toEqual(["pip", "ssh"]);
  });

  it("refuses naming spec.buildArgs[i] and the Secret the user may not get; none when it may get them all", () => {
    const references = secretReferences(build);
    const refused = firstUnreadable(references, new Set(["pip"]));
    expect(refused && secretRefusal(refused, "alice", "team-a")).toBe(
      "spec.buildArgs[3] (KEY): user alice may not get Secret ssh in namespace team-a; a build argument may take a Secret only if whoever creates or changes the ImageBuild may read it",
    );
    expect(firstUnreadable(references, new Set(["pip", "ssh"]))).toBeUndefined();
  });

  it("is called only for a created or changed spec with a Secret argument", () => {
    expect(matchConditions.map((c) => c.expression)).toEqual([
      "request.operation == 'CREATE' || object.spec != oldObject.spec",
      "has(object.spec.buildArgs) && object.spec.buildArgs.exists(a, has(a.valueFrom))",
    ]);
  });
});

describe("the webhook's serving certificate", () => {
  const now = new Date("2026-06-01T00:00:00Z");
  const day = 86_400_000;

  it("names its hosts (DNS and IP) and is valid for its lifetime", async () => {
    const issued = await issueServingCertificate(["hook.ns.svc", "127.0.0.1"], now, 90);
    const facts = certificateFacts(issued.certPem);
    expect(facts?.hosts).toEqual(["hook.ns.svc", "127.0.0.1"]);
    expect(facts?.notAfter.getTime()).toBe(Math.floor((now.getTime() + 90 * day) / 1000) * 1000);
  });

  it("is rotated when missing, for other hosts, or past two thirds of its lifetime", () => {
    const facts = { notBefore: now, notAfter: new Date(now.getTime() + 90 * day), hosts: ["a.svc"] };
    expect(rotationReason(undefined, ["a.svc"], now)).toBe("no readable serving certificate");
    expect(rotationReason(facts, ["b.svc"], now)).toBe("the certificate does not name b.svc");
    expect(rotationReason(facts, ["a.svc"], new Date(now.getTime() + 59 * day))).toBeUndefined();
    expect(rotationReason(facts, ["a.svc"], new Date(now.getTime() + 61 * day))).toMatch(
      /^the certificate expires at/,
    );
  });

  it("keeps the previous CA trusted next to the new one, and drops expired ones", async () => {
    const [older, newer] = [
      await issueServingCertificate(["a"], now, 90),
      await issueServingCertificate(["a"], now, 90),
    ];
    const bundle = nextCaBundle(newer.caPem, older.caPem, now);
    expect(splitPem(bundle)).toEqual([newer.caPem.trim(), older.caPem.trim()]);
    expect(splitPem(nextCaBundle(newer.caPem, older.caPem, new Date(now.getTime() + 91 * day)))).toEqual([
      newer.caPem.trim(),
    ]);
  });
});

describe("the bundle's webhook configuration", () => {
  it("is named after the namespace it is placed in and points at its Service there, for that namespace's builds", () => {
    const webhookOf = (object: BundleObject | undefined) =>
      ((object?.webhooks ?? []) as Record<string, unknown>[])[0];
    const [placed, providers, overrides] = inNamespace(webhookConfigurations({}, undefined), "ml");
    const webhook = webhookOf(placed);
    expect(placed?.metadata?.name).toBe("slipway-imagebuilds-ml");
    expect(webhook).toMatchObject({
      failurePolicy: "Fail",
      clientConfig: { service: { name: "slipway-operator-webhook", namespace: "ml", port: 443 } },
      namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", values: ["ml"] }] },
    });
    expect(providers?.metadata?.name).toBe("slipway-providers-ml");
    expect(webhookOf(providers)).toMatchObject({
      name: "secret-parameters.pipelines.slipway.dev",
      failurePolicy: "Fail",
      clientConfig: {
        service: { name: "slipway-operator-webhook", namespace: "ml", path: "/validate/providers" },
      },
      rules: [
        { apiGroups: ["pipelines.slipway.dev"], resources: ["providers"], operations: ["CREATE", "UPDATE"] },
      ],
      namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", values: ["ml"] }] },
    });
    // the builds override: ConfigMaps, but only the override's data (matchConditions)
    expect(overrides?.metadata?.name).toBe("slipway-builds-overrides-ml");
    expect(webhookOf(overrides)).toMatchObject({
      name: "secret-override.builds.slipway.dev",
      failurePolicy: "Fail",
      clientConfig: { service: { namespace: "ml", path: "/validate/builds-overrides" } },
      rules: [{ apiGroups: [""], resources: ["configmaps"], operations: ["CREATE", "UPDATE"] }],
      matchConditions: [
        { name: "builds-override", expression: expect.stringContaining("== 'slipway-builds'") },
        { name: "data-written" },
        {
          name: "not-the-operator",
          expression: expect.stringContaining("system:serviceaccount:ml:slipway-operator'"),
        },
      ],
    });
    // the operator keeps the caBundle of all three
    expect(webhookArgs).toContain(
      "--webhook-configuration=slipway-imagebuilds-$(POD_NAMESPACE),slipway-providers-$(POD_NAMESPACE),slipway-builds-overrides-$(POD_NAMESPACE)",
    );
    // placed again (a manifest of namespace ml installed in ops): its Namespace object says where it was
    const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "ml" } };
    const [, again] = inNamespace([namespace, placed ?? {}], "ops");
    expect(again?.metadata?.name).toBe("slipway-imagebuilds-ops");
    expect(webhookOf(again)).toMatchObject({
      clientConfig: { service: { namespace: "ops" } },
      namespaceSelector: { matchExpressions: [{ values: ["ops"] }] },
    });
    for (const all of inNamespace(webhookConfigurations({}, "all"), "ml"))
      expect(webhookOf(all)?.namespaceSelector).toBeUndefined();
  });
});
