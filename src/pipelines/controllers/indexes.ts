/** Cache indexes and watch mappings shared by the pipeline resource controllers. */
import type { Cache, KubeObject, ObjectKey, ResourceType } from "../../kube/types.ts";
import { keyText, providerKey } from "../provider-ref.ts";
import { parsePipelineReference } from "../resolve.ts";
import { types } from "../types.ts";

type WithSpec = KubeObject & { spec?: { provider?: string; pipeline?: string; run?: { pipeline?: string } } };

export const byProvider = "provider";
export const byPipeline = "pipeline";

function providerValues(object: KubeObject): string[] {
  const { spec, metadata } = object as WithSpec;
  return spec?.provider ? [keyText(providerKey(spec.provider, metadata?.namespace ?? ""))] : [];
}

function pipelineValues(object: KubeObject): string[] {
  const { spec, metadata } = object as WithSpec;
  const reference = spec?.pipeline ?? spec?.run?.pipeline;
  return reference ? [`${metadata?.namespace}/${parsePipelineReference(reference).name}`] : [];
}

const keyOf = (object: KubeObject): ObjectKey => ({
  namespace: object.metadata?.namespace,
  name: object.metadata?.name ?? "",
});

function mapBy(type: ResourceType, index: string) {
  return (object: KubeObject, cache: Cache): ObjectKey[] =>
    cache.byIndex(type, index, keyText(keyOf(object) as Required<ObjectKey>)).map(keyOf);
}

/** A Provider's change re-syncs every resource of `type` that uses it. */
export function providerWatch(type: ResourceType) {
  return {
    index: { type, name: byProvider, values: providerValues },
    watch: { type: types.provider, map: mapBy(type, byProvider) },
  };
}

/** A Pipeline's change reaches the resources of `type` that run it. */
export function pipelineWatch(type: ResourceType) {
  return {
    index: { type, name: byPipeline, values: pipelineValues },
    watch: { type: types.pipeline, map: mapBy(type, byPipeline) },
  };
}
