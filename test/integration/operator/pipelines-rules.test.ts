/**
 * Every rule the pipelines controllers are granted is used: they run as the operator's ServiceAccount
 * with the bundle's RBAC (for an allowlist naming the Providers' accounts) less one rule, on an argo
 * Provider with a Pipeline and a Run and two kfp Providers (a token Secret, a minted token; their
 * endpoint a closed loopback port), and the API server refuses something (a 403). The rules are
 * derived from the controllers, so a rule added later is tested without a change here.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { bundleFor } from "../../../src/bundle/bundle.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import type { ControllerSpec } from "../../../src/kube/types.ts";
import { deriveRbac, runtimePermissions } from "../../../src/operator/rbac.ts";
import { backendsFor } from "../../../src/pipelines/backends.ts";
import { pipelineControllers } from "../../../src/pipelines/controllers/index.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { allowlistPolicy } from "../../../src/pipelines/provider-service-accounts.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import {
  Api,
  installArgoCrds,
  type Obj,
  startWorkflowControllerDeployment,
} from "../../support/fakes/pipelines-operator.ts";
import {
  applyRbac,
  bundleOptions,
  bundleWithout,
  forbiddenRequests,
  removableRules,
  startOperatorAs,
} from "../../support/operator-rbac.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const allowlist = ["*/runner", "*/kfp-client"];
// the kfp endpoint is a closed port on 127.0.0.1: allowed, so that its token is read (or minted)
const backends = backendsFor(outboundPolicy({ allow: ["127.0.0.1"] }));
const controllers = (): ControllerSpec[] =>
  pipelineControllers({ backends, serviceAccounts: allowlistPolicy(allowlist) });
const options = () => ({ ...bundleOptions(controllers()), providerServiceAccounts: allowlist });
const rbac = deriveRbac(controllers(), runtimePermissions, allowlist);
const cases = [...removableRules(rbac.namespaced), ...removableRules(rbac.cluster)];
const group = "pipelines.slipway.dev/v1beta1";

let api: Api;
let closedPort = 0;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  closedPort = (await freePorts(1))[0] ?? 0;
});
afterAll(() => api?.close());

const create = (
  type: (typeof types)[keyof typeof types],
  namespace: string,
  kind: string,
  name: string,
  spec: unknown,
) => api.create(type, { apiVersion: group, kind, metadata: { name, namespace }, spec } as Obj);

/**
 * The accounts and Secret, an argo Provider (and a workflow controller's Deployment serving its
 * namespace, which its readiness lists) with a Pipeline and a Run, and two kfp Providers.
 */
async function createPipelinesObjects(namespace: string): Promise<void> {
  await startWorkflowControllerDeployment(api, namespace);
  const core = adminConfig().makeApiClient(CoreV1Api);
  for (const name of ["runner", "kfp-client"])
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: "kfp" }, stringData: { token: "kfp-rules-token-4d1e" } },
  });
  const endpoint = `http://127.0.0.1:${closedPort}`;
  await create(types.provider, namespace, "Provider", "argo", { type: "argo", serviceAccount: "runner" });
  await create(types.provider, namespace, "Provider", "kfp-secret", {
    type: "kfp",
    parameters: { endpoint, auth: { bearerTokenSecret: { name: "kfp" } } },
  });
  await create(types.provider, namespace, "Provider", "kfp-token", {
    type: "kfp",
    parameters: { endpoint, auth: { serviceAccountToken: { serviceAccount: "kfp-client" } } },
  });
  await create(types.pipeline, namespace, "Pipeline", "train", {
    provider: "argo",
    image: "registry.example/ml/pipeline:1",
    steps: [{ name: "train", args: ["--epochs=1"] }],
  });
  await create(types.run, namespace, "Run", "once", { provider: "argo", pipeline: "train" });
}

const workflows = (namespace: string) =>
  api.rest.request<{ items: unknown[] }>(
    "GET",
    `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/workflows`,
  );

describe("the pipelines controllers with the bundle's RBAC less one rule", () => {
  it("(with every rule: no 403 while the Providers are evaluated, the Pipeline synced and the Run's Workflow made)", async () => {
    const namespace = await testNamespace("pipelines-rule");
    await applyRbac(bundleFor(namespace, options()));
    const manager = await startOperatorAs(namespace, controllers());
    await createPipelinesObjects(namespace);
    await eventually(
      "the Run's Workflow and every Provider with a status",
      async () => {
        const providers = await Promise.all(
          ["argo", "kfp-secret", "kfp-token"].map((name) => api.get<Any>(types.provider, namespace, name)),
        );
        return providers.every((p) => p?.status?.conditions?.length)
          ? (await workflows(namespace)).items.length
          : 0;
      },
      (n) => n > 0,
      60_000,
    );
    expect(await forbiddenRequests(manager)).toBe(0);
  });

  it.each(cases)("get a 403 without the rule on %s", async (_, removed) => {
    const namespace = await testNamespace("pipelines-rule");
    await applyRbac(bundleWithout(bundleFor(namespace, options()), removed));
    const manager = await startOperatorAs(namespace, controllers());
    await createPipelinesObjects(namespace);
    await eventually(
      "a 403 from the API server",
      () => forbiddenRequests(manager),
      (n) => n > 0,
      60_000,
    );
  });
});
