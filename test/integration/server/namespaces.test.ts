import { RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { serviceAccountToken, startServer } from "./server.ts";

/** Lets ServiceAccount `account` of `accountNamespace` list `resources` of pipelines.slipway.dev in `namespace`. */
async function allowListing(
  namespace: string,
  accountNamespace: string,
  account: string,
  resources: string[],
) {
  const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
  const name = `${account}-list`;
  const rules = [{ apiGroups: ["pipelines.slipway.dev"], resources, verbs: ["list"] }];
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name: account, namespace: accountNamespace }],
    },
  });
}

describe("GET /namespaces: where the caller may list the UI's resources", () => {
  beforeAll(() => installCrds([ImageBuildKind, ...pipelineKinds]));

  it("answers the namespaces the API server allows the caller, per resource; none is an empty list, not an error", async () => {
    const home = await testNamespace("ns-home");
    const other = await testNamespace("ns-other");
    const closed = await testNamespace("ns-closed");
    const url = await startServer(home);
    const viewer = await serviceAccountToken(home, "viewer");
    await grantRole(home, "viewer", "viewer-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list"] },
    ]);
    await allowListing(other, home, "viewer", ["pipelines", "runs"]);
    const nobody = await serviceAccountToken(home, "nobody");
    const get = async (token: string, query = "") => {
      const response = await fetch(`${url}/api/v1/namespaces${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as { namespaces?: unknown } };
    };

    // its own namespace is a candidate; another only when the page asks (it may not list namespaces)
    expect(await get(viewer)).toEqual({
      status: 200,
      body: { namespaces: [{ name: home, resources: ["imagebuilds"] }] },
    });
    const asked = await get(viewer, `?include=${other}&include=${closed}`);
    expect(asked.body.namespaces).toEqual(
      [
        { name: home, resources: ["imagebuilds"] },
        { name: other, resources: ["pipelines", "runs"] },
      ].sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(await get(nobody, `?include=${other}`)).toEqual({ status: 200, body: { namespaces: [] } });
    expect(await get(viewer, "?include=Not_A_Namespace")).toMatchObject({
      status: 400,
      body: { field: expect.stringMatching(/^querystring\.include/) },
    });

    // paged: pages of one, each after the previous page's last name, skipping the closed namespace
    const visible = [home, other].sort();
    const paged: string[] = [];
    let next: string | undefined;
    do {
      const page = await get(
        viewer,
        `?include=${other}&include=${closed}&limit=1${next ? `&continue=${next}` : ""}`,
      );
      const body = page.body as { namespaces: { name: string }[]; continue?: string };
      expect(page.status).toBe(200);
      expect(body.namespaces.length).toBeLessThanOrEqual(1);
      paged.push(...body.namespaces.map((namespace) => namespace.name));
      next = body.continue;
      if (next) expect(next).toBe(body.namespaces.at(-1)?.name);
    } while (next && paged.length < 10);
    expect(paged).toEqual(visible);
    expect((await get(viewer, `?include=${other}&continue=${visible[0]}`)).body).toEqual({
      namespaces: [
        { name: visible[1], resources: visible[1] === home ? ["imagebuilds"] : ["pipelines", "runs"] },
      ],
    });
    for (const [query, field] of [
      ["?limit=0", "querystring.limit"],
      ["?limit=501", "querystring.limit"],
      ["?continue=Not_A_Namespace", "querystring.continue"],
    ]) {
      expect(await get(viewer, query), query).toMatchObject({ status: 400, body: { field } });
    }

    const openapi = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toContain("/api/v1/namespaces");
  });
});
