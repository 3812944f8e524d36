/**
 * The demo user (src/dev/demo-user.ts), with its own token on the real API server: reads the Platform
 * and its Components, changes spec.version, and nothing else.
 */
import {
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { PipelineKind } from "../../../src/apis/pipelines/pipeline.ts";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { RunKind } from "../../../src/apis/pipelines/run.ts";
import { ComponentKind } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { demoUserToken, removeDemoUserPolicy } from "../../../src/dev/demo-user.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { userKubeConfig } from "../../support/fakes/user-kubeconfig.ts";
import { createPlatform } from "../../support/platform.ts";

const group = PlatformKind.group;
const version = PlatformKind.version;

const demoMade = [ImageBuildKind, PipelineKind, RunKind, ProviderKind];

beforeAll(() => installCrds([PlatformKind, ComponentKind, ...demoMade]));

let lastRefusal = "";

/** The HTTP status of a request (200 when it succeeded); a refusal's body is kept in lastRefusal. */
const statusOf = (request: Promise<unknown>) =>
  request.then(
    () => 200,
    (error: { code?: number; body?: unknown }) => {
      lastRefusal = String(error.body);
      return error.code ?? -1;
    },
  );

describe("the demo user", () => {
  it("may change spec.version of the Platform, and no other field (refusals name it), and no Component", async () => {
    const namespace = await testNamespace("demo");
    const admin = adminConfig().makeApiClient(CustomObjectsApi);
    await createPlatform(namespace, { version: "0.0.9" });
    const token = await demoUserToken(adminConfig(), namespace);
    onTestFinished(() => removeDemoUserPolicy(adminConfig(), namespace));
    const user = userKubeConfig(adminConfig(), token).makeApiClient(CustomObjectsApi);
    const patch = (spec: object, plural = "platforms", name = "slipway") =>
      statusOf(
        user.patchNamespacedCustomObject(
          { group, version, namespace, plural, name, body: { spec } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        ),
      );

    expect(
      await statusOf(
        user.getNamespacedCustomObject({ group, version, namespace, plural: "platforms", name: "slipway" }),
      ),
    ).toBe(200);
    // the policy takes effect once the API server has loaded it (until then the probe's change is taken)
    let probe = 0;
    await eventually(
      "the policy in force",
      () => patch({ host: `probe-${probe++}.example` }),
      (code) => code === 403,
      30_000,
    );
    expect(lastRefusal).toContain(
      "spec.host may not be changed by the demo user: it may change only spec.version",
    );
    expect(
      await patch({ allowImageOverrides: true, components: { web: { image: "example.org/evil:1" } } }),
    ).toBe(403);
    expect(lastRefusal).toContain("spec.allowImageOverrides may not be changed by the demo user");
    expect(await patch({ stopped: true })).toBe(403);
    expect(await patch({ logLevel: "DEBUG" })).toBe(403);
    expect(await patch({ version: "0.1.0" })).toBe(200);
    expect(await patch({ version: "0.1.0", stopped: true })).toBe(403);
    const patchMetadata = (metadata: object) =>
      statusOf(
        user.patchNamespacedCustomObject(
          { group, version, namespace, plural: "platforms", name: "slipway", body: { metadata } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        ),
      );
    const missingOwner = {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "gone",
      uid: "00000000-0000-0000-0000-000000000001",
    };
    expect(await patchMetadata({ ownerReferences: [missingOwner] })).toBe(403);
    expect(lastRefusal).toContain("metadata.ownerReferences may not be changed by the demo user");
    expect(await patchMetadata({ finalizers: ["example.org/never"] })).toBe(403);
    expect(lastRefusal).toContain("metadata.finalizers may not be changed by the demo user");
    expect(await patchMetadata({ labels: { "app.kubernetes.io/part-of": "other" } })).toBe(403);
    expect(lastRefusal).toContain("metadata.labels may not be changed by the demo user");
    expect(await patchMetadata({ annotations: { "example.org/note": "x" } })).toBe(403);
    expect(lastRefusal).toContain("metadata.annotations may not be changed by the demo user");
    // an update that carries the metadata unchanged (the UI's version change) is the version change
    expect(await patch({ version: "0.1.0" })).toBe(200);
    // 429 while the API server's watch cache of a new CRD initializes; the answer after it is the rule's
    for (const kind of demoMade) {
      const list = () =>
        statusOf(
          user.listNamespacedCustomObject({
            group: kind.group,
            version: kind.version,
            namespace,
            plural: kind.plural,
          }),
        );
      const code = await eventually(`${kind.plural} served`, list, (c) => c !== 429, 30_000);
      expect(code, kind.plural).toBe(200);
    }
    // a build's pod and its log, an object's Events (the build log and history pages); no Secret,
    // no write: as the API server's authorizer answers the demo user itself
    const may = async (verb: string, resource: string, subresource?: string) => {
      const review = await userKubeConfig(adminConfig(), token)
        .makeApiClient(AuthorizationV1Api)
        .createSelfSubjectAccessReview({
          body: { spec: { resourceAttributes: { namespace, verb, resource, subresource } } },
        });
      return review.status?.allowed === true;
    };
    expect(await may("list", "pods")).toBe(true);
    expect(await may("get", "pods", "log")).toBe(true);
    expect(await may("list", "events")).toBe(true);
    expect(await may("watch", "events")).toBe(true);
    expect(await may("get", "secrets")).toBe(false);
    expect(await may("delete", "pods")).toBe(false);
    expect(await may("create", "pods", "exec")).toBe(false);
    const core = userKubeConfig(adminConfig(), token).makeApiClient(CoreV1Api);
    expect(await statusOf(core.listNamespacedPod({ namespace }))).toBe(200);
    expect(await statusOf(core.listNamespacedEvent({ namespace }))).toBe(200);
    expect(await statusOf(core.listNamespacedSecret({ namespace }))).toBe(403);
    expect(
      await statusOf(
        user.deleteNamespacedCustomObject({
          group,
          version,
          namespace,
          plural: "platforms",
          name: "slipway",
        }),
      ),
    ).toBe(403);
    expect(
      await statusOf(
        user.createNamespacedCustomObject({
          group,
          version,
          namespace,
          plural: "components",
          body: {
            apiVersion: ComponentKind.apiVersion,
            kind: "Component",
            metadata: { name: "x" },
            spec: {},
          },
        }),
      ),
    ).toBe(403);

    const stored = (await admin.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: "platforms",
      name: "slipway",
    })) as {
      spec: Record<string, unknown>;
    };
    expect(stored.spec).toMatchObject({ version: "0.1.0", stopped: false, allowImageOverrides: false });
    expect(stored.spec.components).toEqual({});
    const metadata = (stored as { metadata?: Record<string, unknown> }).metadata;
    expect(metadata?.ownerReferences).toBeUndefined();
    expect(metadata?.annotations).toBeUndefined();
    expect(metadata?.labels).toBeUndefined();
  });
});
