/**
 * The ServiceAccounts a Provider may name come from the operator's allowlist: a Provider naming
 * another one is not accepted (ProviderAccepted=False naming spec.serviceAccount, never Ready) and
 * nothing is created in its backend for the resources that use it; `allowedNamespaces: ["*"]` is
 * reported (AllNamespaces=True). The pipelines controllers run in-process on the real control plane.
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api } from "@kubernetes/client-node";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { backendsFor } from "../../../src/pipelines/backends.ts";
import { pipelineControllers } from "../../../src/pipelines/controllers/index.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { allowlistPolicy } from "../../../src/pipelines/provider-service-accounts.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, type Obj } from "../../support/fakes/pipelines-operator.ts";
import { testNamespaceLabel } from "../../support/namespace-janitor.ts";
import { condition } from "../../support/pipelines-testbed.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const group = "pipelines.slipway.dev/v1beta1";

let api: Api;
let namespace: string;
let operator: Manager;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
});

afterAll(() => api?.close());

/** The pipelines controllers serving `namespace`, allowing only `<namespace>/pipeline-runner` and `*\/shared-runner`. */
async function startOperator(served: string): Promise<void> {
  operator = new Manager({
    kubeConfig: adminConfig(),
    namespaces: [served],
    fieldManager: "slipway-pipelines",
    log: pino({ level: process.env.SLIPWAY_TEST_LOG ?? "silent" }),
  });
  const serviceAccounts = allowlistPolicy([`${served}/pipeline-runner`, "*/shared-runner"]);
  // a workflow controller serves every namespace (SLIPWAY_ARGO_NAMESPACES=*): only the accounts decide here
  const backends = backendsFor(outboundPolicy(), { servedNamespaces: ["*"] });
  for (const controller of pipelineControllers({ backends, serviceAccounts })) operator.add(controller);
  await operator.start();
}

async function provider(name: string, spec: Record<string, unknown>): Promise<Any> {
  await api.create(types.provider, {
    apiVersion: group,
    kind: "Provider",
    metadata: { name, namespace },
    spec: { type: "argo", ...spec },
  } as Obj);
  return eventually(
    `Provider ${name} evaluated`,
    () => api.get(types.provider, namespace, name),
    (p: Any) => condition(p, "ProviderAccepted") !== undefined && condition(p, "Ready") !== undefined,
    30_000,
  );
}

describe("the ServiceAccounts a Provider may name", () => {
  beforeAll(async () => {
    namespace = `pvd-sa-${randomBytes(4).toString("hex")}`;
    await adminConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: namespace, labels: { [testNamespaceLabel]: "true" } } } });
    await startOperator(namespace);
  });
  afterAll(async () => {
    await operator?.stop();
    await adminConfig()
      .makeApiClient(CoreV1Api)
      .deleteNamespace({ name: namespace })
      .catch(() => {});
  });

  it("one not on the allowlist: ProviderAccepted=False naming spec.serviceAccount; a Pipeline using it gets nothing", async () => {
    const refused = await provider("as-admin", { serviceAccount: "namespace-admin" });
    expect(condition(refused, "ProviderAccepted")).toMatchObject({
      status: "False",
      reason: "ServiceAccountNotAllowed",
      message: `spec.serviceAccount: ServiceAccount ${namespace}/namespace-admin is not on the operator's allowlist of Provider ServiceAccounts (SLIPWAY_PROVIDER_SERVICE_ACCOUNTS)`,
    });
    expect(condition(refused, "Ready")).toMatchObject({
      status: "False",
      reason: "ServiceAccountNotAllowed",
    });

    await api.create(types.pipeline, {
      apiVersion: group,
      kind: "Pipeline",
      metadata: { name: "train", namespace },
      spec: {
        provider: "as-admin",
        image: "registry.example/ml/pipeline:1",
        steps: [{ name: "train", args: ["--epochs=1"] }],
      },
    } as Obj);
    const pipeline: Any = await eventually(
      "the Pipeline refused",
      () => api.get(types.pipeline, namespace, "train"),
      (p: Any) => condition(p, "ProviderAccepted")?.status === "False",
      30_000,
    );
    expect(condition(pipeline, "ProviderAccepted")).toMatchObject({
      reason: "ServiceAccountNotAllowed",
      message: expect.stringContaining(
        `spec.provider: Provider ${namespace}/as-admin is not accepted: spec.serviceAccount`,
      ),
    });
    expect(await api.list(types.workflowTemplate, namespace)).toEqual([]);
  });

  it("one on the allowlist (this namespace's entry or a */name one) is accepted and Ready", async () => {
    for (const [name, serviceAccount] of [
      ["own", "pipeline-runner"],
      ["shared", "shared-runner"],
    ] as const) {
      const accepted = await provider(name, { serviceAccount });
      expect(condition(accepted, "ProviderAccepted")).toMatchObject({ status: "True", reason: "Accepted" });
      expect(condition(accepted, "Ready")?.status).toBe("True");
    }
  });

  it('allowedNamespaces ["*"] is reported as AllNamespaces=True; a listed one as False', async () => {
    const open = await provider("open", { allowedNamespaces: ["*"] });
    expect(condition(open, "AllNamespaces")).toMatchObject({
      status: "True",
      reason: "OpenToAllNamespaces",
      message: 'spec.allowedNamespaces: ["*"]: resources of every namespace may use this Provider',
    });
    const listed = await provider("listed", { allowedNamespaces: ["team-a"] });
    expect(condition(listed, "AllNamespaces")).toMatchObject({ status: "False", reason: "ListedNamespaces" });
  });
});
