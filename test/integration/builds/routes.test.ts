import { CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { createImageBuild, readImageBuild } from "../../support/builds/operator.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { awaitGranted, grantRole } from "../../support/service-account.ts";
import { writeBuildStatus } from "../server/build-pods.ts";
import { serviceAccountToken, startServer } from "../server/server.ts";

async function grantImageBuilds(namespace: string, serviceAccount: string) {
  await grantRole(namespace, serviceAccount, `${serviceAccount}-imagebuilds`, [
    {
      apiGroups: [ImageBuildKind.group],
      resources: [ImageBuildKind.plural],
      verbs: ["get", "list", "create", "delete"],
    },
    { apiGroups: [""], resources: ["pods", "pods/log"], verbs: ["get", "list"] },
  ]);
}

/** A Role in `namespace` letting ServiceAccount `serviceAccount` of `accountNamespace` read pods and their logs. */
async function allowPodReading(namespace: string, accountNamespace: string, serviceAccount: string) {
  const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
  const rules = [{ apiGroups: [""], resources: ["pods", "pods/log"], verbs: ["get", "list"] }];
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name: "build-pods" }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: "build-pods" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "build-pods" },
      subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace: accountNamespace }],
    },
  });
  await awaitGranted({ namespace: accountNamespace, name: serviceAccount }, namespace, rules);
}

/** Calls the image-build routes of `namespace` with `token`. */
const caller =
  (url: string, namespace: string, token: string) => async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/api/v1/namespaces/${namespace}/imagebuilds${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

const spec = { project: "fraud", name: "scorer", version: "v1", artifactUri: "s3://models/fraud/v1" };

describe("REST API of image builds", () => {
  beforeAll(() => installCrds([ImageBuildKind]));

  it("creates (202), gets, lists, refuses bad input with 400 naming the field, deletes; OpenAPI lists the paths", async () => {
    const namespace = await testNamespace("ib-rest");
    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "builder");
    await grantImageBuilds(namespace, "builder");
    const call = caller(url, namespace, token);

    const created = await call("POST", "", { name: "scorer", spec });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ name: "scorer", namespace, spec });
    expect((await readImageBuild(namespace, "scorer")).spec).toEqual(spec);

    const badUri = await call("POST", "", { name: "bad", spec: { ...spec, artifactUri: "ftp://x/y" } });
    expect(badUri.status).toBe(400);
    expect(badUri.body).toMatchObject({ statusCode: 400, field: "body.spec.artifactUri" });
    const missing = await call("POST", "", { name: "bad", spec: { project: "fraud" } });
    expect(missing).toMatchObject({ status: 400, body: { field: expect.stringMatching(/^body\.spec\./) } });
    const both = await call("POST", "", {
      name: "bad",
      spec: {
        ...spec,
        buildArgs: [{ name: "T", value: "x", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }],
      },
    });
    expect(both).toMatchObject({
      status: 400,
      body: { field: "body.spec.buildArgs.0", message: /exactly one of value or valueFrom/ },
    });

    expect(await call("GET", "/scorer")).toMatchObject({ status: 200, body: { name: "scorer", spec } });
    const list = await call("GET", "");
    expect((list.body.items as { name: string }[]).map((i) => i.name)).toEqual(["scorer"]);
    expect(await call("GET", "/scorer/logs")).toMatchObject({
      status: 404,
      body: { message: /no build Job yet/ },
    });
    expect(await call("GET", "/nope")).toMatchObject({
      status: 404,
      body: { message: `ImageBuild ${namespace}/nope does not exist` },
    });
    expect(await call("DELETE", "/scorer")).toMatchObject({
      status: 202,
      body: { deleted: `${namespace}/scorer` },
    });

    const openapi = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/namespaces/{namespace}/imagebuilds",
        "/api/v1/namespaces/{namespace}/imagebuilds/{name}",
        "/api/v1/namespaces/{namespace}/imagebuilds/{name}/logs",
      ]),
    );
  });

  it("logs: the pod is looked for where the status says the Job runs (a buildNamespace), not in the build's namespace", async () => {
    const namespace = await testNamespace("ib-logs");
    const builds = await testNamespace("ib-logs-builds");
    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "builder");
    await grantImageBuilds(namespace, "builder");
    await allowPodReading(builds, namespace, "builder");
    await createImageBuild(namespace, "scorer", spec);
    const job = { namespace: builds, name: "build-fraud-scorer-v1" };
    await writeBuildStatus(namespace, "scorer", { phase: "Building", job });
    // a pod of the Job that no node takes: nothing logged yet (and no kubelet asked)
    await adminConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedPod({
        namespace: builds,
        body: {
          metadata: { name: "build-fraud-scorer-v1-x", labels: { "job-name": job.name } },
          spec: {
            nodeSelector: { "slipway.dev/no-such-node": "true" },
            containers: [{ name: "kaniko", image: "kaniko" }],
          },
        },
      });
    expect(await caller(url, namespace, token)("GET", "/scorer/logs")).toEqual({
      status: 200,
      body: { pod: "build-fraud-scorer-v1-x", container: "kaniko", logs: "" },
    });
  });
});
