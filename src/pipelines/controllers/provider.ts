import type { Provider } from "../../apis/pipelines/provider.ts";
import { type ConditionInput, getCondition, setCondition } from "../../kube/conditions.ts";
import type { Client, ControllerSpec, KubeObject, ReconcileContext, ResourceType } from "../../kube/types.ts";
import { availableBackends } from "../provider-ref.ts";
import { providerType } from "../types.ts";

const crdType: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  namespaced: false,
};

/** The Argo kinds the argo backend writes; the backend answers when the API server serves all of them. */
export const argoCrds = [
  "workflowtemplates.argoproj.io",
  "workflows.argoproj.io",
  "cronworkflows.argoproj.io",
];

async function argoReadiness(client: Client): Promise<ConditionInput> {
  for (const name of argoCrds) {
    const crd = await client.get<
      KubeObject & { status?: { conditions?: { type: string; status: string }[] } }
    >(crdType, {
      name,
    });
    const established = crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    if (!established) {
      return {
        type: "Ready",
        status: "False",
        reason: "BackendUnavailable",
        message: `the API server does not serve ${name}: install Argo Workflows`,
      };
    }
  }
  return {
    type: "Ready",
    status: "True",
    reason: "BackendAvailable",
    message: "Argo Workflows is installed",
  };
}

/** Ready: the backend answers with this configuration. */
export async function providerReadiness(provider: Provider, client: Client): Promise<ConditionInput> {
  if (!availableBackends.includes(provider.spec.type)) {
    return {
      type: "Ready",
      status: "False",
      reason: "BackendUnavailable",
      message: `spec.type: this operator does not run the ${provider.spec.type} backend yet`,
    };
  }
  return argoReadiness(client);
}

async function reconcileProvider(key: { namespace?: string; name: string }, context: ReconcileContext) {
  const provider = context.cache.get<Provider>(providerType, key);
  if (!provider) return undefined;
  const ready = await providerReadiness(provider, context.client);
  const generation = provider.metadata.generation;
  const before = getCondition(provider.status?.conditions, "Ready");
  if (
    before?.status === ready.status &&
    before.reason === ready.reason &&
    before.message === ready.message &&
    provider.status?.observedGeneration === generation
  ) {
    return ready.status === "True" ? undefined : { requeueAfterMs: 30_000 };
  }
  const written = await context.client.applyStatus({
    ...provider,
    status: {
      observedGeneration: generation,
      conditions: setCondition(provider.status?.conditions, ready, generation),
    },
  });
  if (written && before?.status !== ready.status) {
    context.events.event(
      provider,
      ready.status === "True" ? "Normal" : "Warning",
      ready.reason,
      ready.message,
    );
  }
  return ready.status === "True" ? undefined : { requeueAfterMs: 30_000 };
}

export function providerController(): ControllerSpec {
  return {
    name: "provider",
    for: providerType,
    reconcile: reconcileProvider,
    permissions: [
      { type: providerType, verbs: ["patch", "update"], subresource: "status" },
      { type: crdType, verbs: ["get"] },
    ],
  };
}
