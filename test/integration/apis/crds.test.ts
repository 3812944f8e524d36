import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ApiException, CustomObjectsApi } from "@kubernetes/client-node";
import { describe, expect, inject, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { allKinds } from "../../../src/apis/index.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { gadgetKind } from "../../support/gadget.ts";
import { slipwaySelectorKeys } from "../../support/selector-keys.ts";

const run = promisify(execFile);
const kubectl = (...args: string[]) =>
  run(binaryPaths().kubectl, ["--kubeconfig", inject("kubeconfig"), ...args], { encoding: "utf8" });

const gadgets = (namespace: string) => ({
  group: gadgetKind.group,
  version: gadgetKind.version,
  namespace,
  plural: gadgetKind.plural,
});

/** The create request of one Gadget. */
const newGadget = (namespace: string, name: string, spec: Record<string, unknown>) => ({
  ...gadgets(namespace),
  body: { apiVersion: gadgetKind.apiVersion, kind: "Gadget", metadata: { name }, spec },
});

/** The API server's refusal of a write, as its message. */
async function refusal(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the API server accepted an invalid object").toBeInstanceOf(ApiException);
  const apiError = error as ApiException<unknown>;
  expect(apiError.code).toBe(422);
  const status = typeof apiError.body === "string" ? JSON.parse(apiError.body) : apiError.body;
  return String((status as { message?: string }).message);
}

describe("generated CRDs", () => {
  it.each([...allKinds, gadgetKind].map((kind) => [kind.kind, kind] as const))(
    "are accepted and Established by the API server: %s",
    async (_, kind) => {
      await installCrds([kind]);
    },
  );

  it("show the field descriptions in kubectl explain", async () => {
    await installCrds([gadgetKind]);
    const explained = await eventually(
      "kubectl explain gadgets.spec",
      async () => (await kubectl("explain", "gadgets.spec")).stdout,
      (out) => out.includes("may grow but never shrink"),
      30_000,
    );
    expect(explained).toContain("What the gadget should be.");
    expect(explained).toContain("The fewest replicas.");
  });

  it("make the API server refuse a CEL rule's violation, naming the field", async () => {
    await installCrds([gadgetKind]);
    const namespace = await testNamespace("gadget");
    const api = adminConfig().makeApiClient(CustomObjectsApi);
    const message = await refusal(
      api.createNamespacedCustomObject(
        newGadget(namespace, "inverted", { size: 1, minReplicas: 5, maxReplicas: 2 }),
      ),
    );
    expect(message).toContain("spec.maxReplicas");
    expect(message).toContain("must be at least minReplicas");
  });

  it("make the API server refuse a transition rule's violation on update, naming the field, and apply defaults", async () => {
    await installCrds([gadgetKind]);
    const namespace = await testNamespace("gadget");
    const api = adminConfig().makeApiClient(CustomObjectsApi);
    const created = (await api.createNamespacedCustomObject(newGadget(namespace, "g", { size: 3 }))) as {
      spec: Record<string, unknown>;
    };
    expect(created.spec).toEqual({ size: 3, minReplicas: 1, maxReplicas: 3, mode: "safe" });

    await api.patchNamespacedCustomObject({
      ...gadgets(namespace),
      name: "g",
      body: [{ op: "replace", path: "/spec/size", value: 4 }],
    });
    const message = await refusal(
      api.patchNamespacedCustomObject({
        ...gadgets(namespace),
        name: "g",
        body: [{ op: "replace", path: "/spec/size", value: 2 }],
      }),
    );
    expect(message).toContain("spec.size");
    expect(message).toContain("may grow but not shrink");
  });

  it("give kubectl the printer columns, the short name and the slipway category", async () => {
    await installCrds([gadgetKind]);
    const namespace = await testNamespace("gadget");
    await adminConfig()
      .makeApiClient(CustomObjectsApi)
      .createNamespacedCustomObject(newGadget(namespace, "shown", { size: 42 }));
    const table = (await kubectl("get", "gdt", "-n", namespace)).stdout;
    expect(table).toMatch(/^NAME\s+SIZE\s+AGE$/m);
    expect(table).toMatch(/^shown\s+42\s+/m);
    // the category spans every CRD of it, other files' too: one deleted between kubectl's discovery
    // and its list fails that one call ("the server doesn't have a resource type"), so it is asked again
    const category = await eventually(
      "kubectl get slipway",
      () =>
        kubectl("get", "slipway", "-n", namespace).then(
          (result) => result.stdout,
          (error: Error) => error.message,
        ),
      (output) => !output.includes("the server doesn't have a resource type"),
      30_000,
    );
    expect(category).toContain("gadget.test.slipway.dev/shown");
  });

  it("refuse a value outside an enum made from a union of literals", async () => {
    await installCrds([gadgetKind]);
    const namespace = await testNamespace("gadget");
    const api = adminConfig().makeApiClient(CustomObjectsApi);
    const message = await refusal(
      api.createNamespacedCustomObject(newGadget(namespace, "m", { size: 1, mode: "turbo" })),
    );
    expect(message).toContain("spec.mode");
    expect(message).toContain('spec.mode: Unsupported value: "turbo": supported values: "fast", "safe"');
  });

  it("refuse an ImageBuild's spec.labels setting a key the NetworkPolicies or build Jobs select by, naming the field and the rule", async () => {
    await installCrds([ImageBuildKind]);
    const namespace = await testNamespace("ib-labels");
    const api = adminConfig().makeApiClient(CustomObjectsApi);
    const build = (name: string, labels: Record<string, string>) => ({
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      namespace,
      plural: ImageBuildKind.plural,
      body: {
        apiVersion: ImageBuildKind.apiVersion,
        kind: ImageBuildKind.kind,
        metadata: { name },
        spec: { project: "p", name: "n", version: "v1", artifactUri: "s3://models/p/v1", labels },
      },
    });
    const keys = slipwaySelectorKeys();
    expect(keys).toContain("workflows.argoproj.io/workflow");
    for (const key of keys) {
      const message = await refusal(api.createNamespacedCustomObject(build("b", { [key]: "x" })));
      expect(message, key).toMatch(/spec\.labels: Forbidden: label keys .* are reserved/);
      expect(message, key).toContain("argoproj.io");
    }
    await api.createNamespacedCustomObject(build("ok", { team: "risk", "example.com/cost-center": "ml-42" }));
  });

  it("refuse a toleration held for more than a year (every duration is bounded), naming the field", async () => {
    await installCrds([PlatformKind]);
    const namespace = await testNamespace("tolerations");
    const api = adminConfig().makeApiClient(CustomObjectsApi);
    const platform = (name: string, tolerationSeconds: number) => ({
      group: PlatformKind.group,
      version: PlatformKind.version,
      namespace,
      plural: PlatformKind.plural,
      body: {
        apiVersion: PlatformKind.apiVersion,
        kind: PlatformKind.kind,
        metadata: { name },
        spec: {
          components: {
            postgres: {
              tolerations: [{ key: "spot", operator: "Exists", effect: "NoExecute", tolerationSeconds }],
            },
          },
        },
      },
    });
    const message = await refusal(api.createNamespacedCustomObject(platform("forever", 31_536_001)));
    expect(message).toContain("spec.components.postgres.tolerations[0].tolerationSeconds");
    expect(message).toContain("less than or equal to 31536000");
    await api.createNamespacedCustomObject(platform("a-day", 86_400));
  });
});
