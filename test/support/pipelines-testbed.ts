/**
 * The set-up the remote pipeline backends' integration tests (kfp, vertex) share: the pipeline
 * kinds' CRDs on the shared control plane, the pipelines operator in-process (completion polled
 * every second), and the reads and writes of pipeline resources every such test makes.
 */
import { afterAll, beforeAll } from "vitest";
import { pipelineKinds } from "../../src/apis/pipelines/index.ts";
import type { Manager } from "../../src/kube/manager.ts";
import type { ResourceType } from "../../src/kube/types.ts";
import type { OutboundSettings } from "../../src/pipelines/outbound-policy.ts";
import { adminConfig, eventually, isOwnNamespace } from "./cluster.ts";
import { installCrds } from "./crds.ts";
import { Api, startPipelinesOperator } from "./fakes/pipelines-operator.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const group = "pipelines.slipway.dev/v1beta1";

export const condition = (object: Any, type: string) =>
  object?.status?.conditions?.find((c: Any) => c.type === type);

export interface PipelinesTestbed {
  /** The admin client (once the suite's beforeAll ran). */
  readonly api: Api;
  create(type: ResourceType, namespace: string, name: string, spec: Any): Promise<void>;
  /** The in-process pipelines operator (once the suite's beforeAll ran). */
  readonly operator: Manager;
  /** Waits for Synchronized=Succeeded at `generation`; the resource as then read. */
  synced(type: ResourceType, namespace: string, name: string, generation?: number): Promise<Any>;
}

/**
 * Registers the suite's beforeAll/afterAll (nothing is started when `enabled` is false);
 * `serviceAccounts` is the operator's allowlist of the ServiceAccounts a Provider may name,
 * `outbound` its outbound policy (a test's own backends on 127.0.0.1 must be allowed there).
 */
export function pipelinesTestbed(
  enabled = true,
  serviceAccounts: readonly string[] = [],
  outbound: OutboundSettings = {},
): PipelinesTestbed {
  let api: Api | undefined;
  let operator: Manager | undefined;
  beforeAll(async () => {
    if (!enabled) return;
    api = new Api(adminConfig());
    await installCrds(pipelineKinds);
    operator = await startPipelinesOperator(adminConfig(), {
      serves: isOwnNamespace,
      run: { completionPollSeconds: 1, defaultTtlSeconds: 3600 },
      serviceAccounts,
      outbound,
    });
  }, 120_000);
  afterAll(async () => {
    await operator?.stop();
    api?.close();
  });
  const bed: PipelinesTestbed = {
    get api() {
      if (!api) throw new Error("the pipelines testbed is not started (its beforeAll has not run)");
      return api;
    },
    get operator() {
      if (!operator) throw new Error("the pipelines testbed is not started (its beforeAll has not run)");
      return operator;
    },
    create: async (type, namespace, name, spec) => {
      await bed.api.create(type, { apiVersion: group, kind: type.kind, metadata: { name, namespace }, spec });
    },
    synced: (type, namespace, name, generation = 1) =>
      eventually(
        `${type.kind} ${name} Succeeded at generation ${generation}`,
        () => bed.api.get<Any>(type, namespace, name),
        (o: Any) => o?.status?.state === "Succeeded" && o.status.observedGeneration === generation,
      ),
  };
  return bed;
}

/**
 * A vertex Provider's spec for the test Vertex endpoint listening on 127.0.0.1:`port`: project
 * `slipway-test`, location `europe-west4` unless `parameters` say otherwise, plaintext unless they
 * name credentials.
 */
export const vertexProviderSpec = (port: number, parameters: Record<string, unknown> = {}) => ({
  type: "vertex",
  pipelineRootStorage: "gs://bucket/root",
  parameters: {
    project: "slipway-test",
    location: "europe-west4",
    apiEndpoint: `127.0.0.1:${port}`,
    ...("credentials" in parameters ? {} : { plaintext: true }),
    ...parameters,
  },
});
