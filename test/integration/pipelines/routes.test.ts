import { beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api } from "../../support/fakes/pipelines-operator.ts";
import { grantRole } from "../../support/service-account.ts";
import { serviceAccountToken, startServer } from "../server/server.ts";

const group = "pipelines.slipway.dev/v1beta1";

async function grantRead(namespace: string, serviceAccount: string, resources: string[]) {
  await grantRole(namespace, serviceAccount, `${serviceAccount}-pipelines`, [
    { apiGroups: ["pipelines.slipway.dev"], resources, verbs: ["get", "list"] },
  ]);
}

describe("REST read endpoints of pipelines", () => {
  beforeAll(() => installCrds(pipelineKinds));

  it("lists and gets pipelines, runs and run configurations as the caller; 404 and 400 as JSON; RBAC applies", async () => {
    const namespace = await testNamespace("pl-rest");
    const api = new Api(adminConfig());
    const spec = { provider: "argo", image: "img:1", steps: [{ name: "train" }] };
    await api.create(types.pipeline, {
      apiVersion: group,
      kind: "Pipeline",
      metadata: { name: "train", namespace },
      spec,
    });
    await api.create(types.run, {
      apiVersion: group,
      kind: "Run",
      metadata: { name: "r1", namespace },
      spec: { provider: "argo", pipeline: "train" },
    });
    await api.create(types.runConfiguration, {
      apiVersion: group,
      kind: "RunConfiguration",
      metadata: { name: "nightly", namespace },
      spec: {
        provider: "argo",
        run: { pipeline: "train" },
        triggers: { schedules: [{ cronExpression: "@daily" }] },
      },
    });
    api.close();

    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "viewer");
    await grantRead(namespace, "viewer", ["pipelines", "runconfigurations"]);
    const get = async (path: string) => {
      const response = await fetch(`${url}/api/v1/namespaces/${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const pipelines = await get(`${namespace}/pipelines`);
    expect(pipelines.status).toBe(200);
    expect(pipelines.body.items).toEqual([expect.objectContaining({ name: "train", namespace, spec })]);
    const one = await get(`${namespace}/pipelines/train`);
    expect(one.body).toMatchObject({ name: "train", spec });
    const configurations = await get(`${namespace}/runconfigurations`);
    expect(configurations.body.items).toEqual([expect.objectContaining({ name: "nightly" })]);

    const missing = await get(`${namespace}/pipelines/nope`);
    expect(missing).toEqual({
      status: 404,
      body: expect.objectContaining({ message: `Pipeline ${namespace}/nope does not exist` }),
    });
    const bad = await get("Not_A_Namespace/runs");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/namespace/);
    // the caller may not read runs: Kubernetes RBAC decides
    expect((await get(`${namespace}/runs`)).status).toBe(403);
  });
});
