/**
 * The builds override a Platform vouches for, on the real API server (issue 14's wiring): a tenant
 * with a low-privileged token (ConfigMaps and ImageBuilds in its namespace, nothing else) writes
 * `slipway-builds` with a forged controller reference to a Platform — one whose uid is not the
 * Platform's, or one of another namespace — and its builds are refused by the ordinary tenancy rules,
 * the status naming why the owner was not trusted; the override the Platform controls is used.
 * The image-build controller runs in this process as the operator wires it (real-build.ts).
 */
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1ConfigMap } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { PlatformKind, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { platformBuildsOverride } from "../../../src/platform/builds-wiring.ts";
import { readImageBuild } from "../../support/builds/operator.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { createPlatform } from "../../support/platform.ts";
import { grantRole, serviceAccountConfig } from "../../support/service-account.ts";
import { startPlatformBuilds } from "./real-build.ts";

const core = () => adminConfig().makeApiClient(CoreV1Api);
const keep = "tenant.example.com/keep";

const createLab = (namespace: string): Promise<PlatformResource> => createPlatform(namespace, {}, "lab");

/** A namespace whose ServiceAccount `tenant` may only write ConfigMaps and ImageBuilds there; its client. */
async function tenantNamespace() {
  const namespace = await testNamespace("tenant");
  await core().createNamespacedServiceAccount({ namespace, body: { metadata: { name: "tenant" } } });
  await grantRole(namespace, "tenant", "tenant", [
    { apiGroups: [""], resources: ["configmaps"], verbs: ["create", "get", "list", "update", "patch"] },
    { apiGroups: ["builds.slipway.dev"], resources: ["imagebuilds"], verbs: ["create", "get", "list"] },
  ]);
  const tenant = await serviceAccountConfig(adminConfig(), namespace, "tenant");
  return { namespace, tenant };
}

/**
 * `lab`'s own override copied into `namespace` with the controller reference's uid set to `uid`,
 * created by the tenant. It holds a finalizer of the tenant's, so that the garbage collector (which
 * deletes an object whose owner does not exist) leaves it in place, as a tenant would want.
 */
async function forge(
  tenant: ReturnType<typeof adminConfig>,
  namespace: string,
  lab: PlatformResource,
  uid: string,
) {
  const original = platformBuildsOverride(lab);
  const [reference] = original.metadata?.ownerReferences ?? [];
  const body: V1ConfigMap = {
    metadata: {
      name: original.metadata?.name,
      namespace,
      finalizers: [keep],
      ownerReferences: [{ ...reference, uid, blockOwnerDeletion: false } as never],
    },
    data: original.data,
  };
  await tenant.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace, body });
  onTestFinished(async () => {
    await core()
      .patchNamespacedConfigMap({
        namespace,
        name: "slipway-builds",
        body: [{ op: "remove", path: "/metadata/finalizers" }],
      })
      .catch(() => {});
  });
}

const spec = { project: "demo", name: "model", version: "v1", artifactUri: "s3://slipway/demo/model" };

/** The ImageBuild `model`, created with `config`'s credentials. */
async function createBuild(config: ReturnType<typeof adminConfig>, namespace: string): Promise<void> {
  await config.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: ImageBuildKind.group,
    version: ImageBuildKind.version,
    namespace,
    plural: ImageBuildKind.plural,
    body: {
      apiVersion: ImageBuildKind.apiVersion,
      kind: ImageBuildKind.kind,
      metadata: { name: "model" },
      spec,
    },
  });
}

async function refusal(namespace: string): Promise<string> {
  const failed = await eventually(
    "the build refused",
    () => readImageBuild(namespace, "model"),
    (b) => b.status?.phase === "Failed",
  );
  expect(failed.status?.conditions?.[0]?.reason).toBe("InvalidOverride");
  return failed.status?.message ?? "";
}

describe("a builds override vouched for by a Platform, on the real API server", () => {
  beforeAll(() => installCrds([PlatformKind, ImageBuildKind]));

  it("a tenant's copy with the Platform's name but another uid is not trusted: refused, saying why", {
    timeout: 120_000,
  }, async () => {
    const { namespace, tenant } = await tenantNamespace();
    const lab = await createLab(namespace);
    // the tenant's token is a tenant's: it may not create a Platform
    await expect(
      tenant.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        group: PlatformKind.group,
        version: PlatformKind.version,
        namespace,
        plural: PlatformKind.plural,
        body: { apiVersion: PlatformKind.apiVersion, kind: "Platform", metadata: { name: "own" }, spec: {} },
      }),
    ).rejects.toMatchObject({ code: 403 });
    await forge(tenant, namespace, lab, "00000000-0000-0000-0000-000000000000");
    const builds = await startPlatformBuilds(namespace);
    onTestFinished(builds.stop);
    await createBuild(tenant, namespace);
    expect(await refusal(namespace)).toMatch(
      /registry\.type: cannot be overridden per namespace .*\(not vouched for: its controller reference names Platform lab with uid 00000000-0000-0000-0000-000000000000, not that Platform's\)$/,
    );
    expect((await adminConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace })).items).toEqual(
      [],
    );
  });

  it("a tenant's copy naming a Platform of another namespace is not trusted: refused, saying why", {
    timeout: 120_000,
  }, async () => {
    const home = await testNamespace("plat");
    const lab = await createLab(home);
    const { namespace, tenant } = await tenantNamespace();
    await forge(tenant, namespace, lab, lab.metadata.uid ?? "");
    const builds = await startPlatformBuilds(namespace);
    onTestFinished(builds.stop);
    await createBuild(tenant, namespace);
    expect(await refusal(namespace)).toMatch(
      new RegExp(
        `\\(not vouched for: its controller reference names Platform lab, which does not exist in namespace ${namespace}\\)$`,
      ),
    );
  });

  it("the override the Platform controls is trusted: the build goes to the platform's registry", {
    timeout: 120_000,
  }, async () => {
    const namespace = await testNamespace("plat");
    const lab = await createLab(namespace);
    await core().createNamespacedConfigMap({ namespace, body: platformBuildsOverride(lab) });
    const builds = await startPlatformBuilds(namespace);
    onTestFinished(builds.stop);
    await createBuild(adminConfig(), namespace);
    const build = await eventually(
      "the build wired to the platform",
      () => readImageBuild(namespace, "model"),
      (b) => b.status?.phase !== undefined && b.status.phase !== "Pending",
    );
    expect(build.status?.conditions?.[0]?.reason).not.toBe("InvalidOverride");
    expect(JSON.stringify(build.status)).toContain(`lab-registry.${namespace}.svc:5000`);
  });
});
