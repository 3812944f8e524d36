/** Resolving what a run refers to: its Pipeline (at the synchronized version) and parameters from RunConfigurations. */
import type { Static } from "@sinclair/typebox";
import type { NamedValue, Parameter } from "../apis/pipelines/common.ts";
import type { Pipeline } from "../apis/pipelines/pipeline.ts";
import type { Run } from "../apis/pipelines/run.ts";
import type { RunConfiguration } from "../apis/pipelines/run-configuration.ts";
import type { Cache } from "../kube/types.ts";
import type { Owner, PipelineDefinition, RunDefinition } from "./backend.ts";
import { type Buildable, blocked, ready } from "./blockers.ts";
import { types } from "./types.ts";
import { versionOf } from "./version.ts";

export function parsePipelineReference(reference: string): { name: string; version?: string } {
  const [name = "", version] = reference.split(":");
  return version ? { name, version } : { name };
}

/** The Pipeline a run names, if its backend has the current spec (and the pinned version, if any). */
export function resolvePipeline(
  cache: Cache,
  namespace: string,
  reference: string,
): Buildable<PipelineDefinition> {
  const { name, version } = parsePipelineReference(reference);
  const pipeline = cache.get<Pipeline>(types.pipeline, { namespace, name });
  if (!pipeline) return blocked("PipelineNotFound", `spec.pipeline: Pipeline ${name} does not exist`);
  const current = versionOf(pipeline.spec);
  if (pipeline.status?.state !== "Succeeded" || pipeline.status.version !== current) {
    return blocked("PipelineNotSynchronized", `spec.pipeline: Pipeline ${name} is not synchronized yet`);
  }
  if (version && version !== current) {
    return blocked(
      "PipelineVersionUnavailable",
      `spec.pipeline: Pipeline ${name} is at version ${current}, not ${version}`,
    );
  }
  const owner: Owner = { object: pipeline, kind: "Pipeline", namespace, name };
  return ready({ owner, name, version: current, spec: pipeline.spec });
}

/** The Pipeline's current version, for resources that embed it (RunSchedules): changes when it is re-synchronized. */
export function pipelineVersion(cache: Cache, namespace: string, reference: string): string | undefined {
  const { name } = parsePipelineReference(reference);
  return cache.get<Pipeline>(types.pipeline, { namespace, name })?.status?.version;
}

/** Parameters with every valueFrom replaced by the artifact location it names. */
export function resolveParameters(
  cache: Cache,
  namespace: string,
  parameters: Static<typeof Parameter>[] | undefined,
): Buildable<Static<typeof NamedValue>[]> {
  const resolved: Static<typeof NamedValue>[] = [];
  for (const parameter of parameters ?? []) {
    if (parameter.value !== undefined) {
      resolved.push({ name: parameter.name, value: parameter.value });
      continue;
    }
    const ref = parameter.valueFrom?.runConfigurationRef;
    if (!ref) continue;
    const source = cache.get<RunConfiguration>(types.runConfiguration, { namespace, name: ref.name });
    const artifact = source?.status?.latestRuns?.succeeded?.artifacts?.find(
      (a) => a.name === ref.outputArtifact,
    );
    if (!artifact) {
      return blocked(
        "ParameterUnresolved",
        `spec.parameters[${parameter.name}].valueFrom: RunConfiguration ${ref.name} has no succeeded run with artifact ${ref.outputArtifact}`,
      );
    }
    resolved.push({ name: parameter.name, value: artifact.location });
  }
  return ready(resolved);
}

/** What a Run or a RunSchedule submits: its Pipeline and its parameters, resolved. */
export function resolveRunDefinition(
  cache: Cache,
  owner: Owner,
  spec: Pick<Run["spec"], "pipeline" | "experimentName" | "parameters" | "artifacts" | "caching">,
): Buildable<RunDefinition> {
  const pipeline = resolvePipeline(cache, owner.namespace, spec.pipeline);
  if (pipeline.type === "blocked") return pipeline;
  const parameters = resolveParameters(cache, owner.namespace, spec.parameters);
  if (parameters.type === "blocked") return parameters;
  const experiment = spec.experimentName
    ? cache.get(types.experiment, { namespace: owner.namespace, name: spec.experimentName })
    : undefined;
  return ready({
    owner,
    pipeline: pipeline.value,
    experimentName: spec.experimentName,
    ...(experiment ? { experiment } : {}),
    parameters: parameters.value,
    artifacts: spec.artifacts ?? [],
    ...(spec.caching ? { caching: spec.caching } : {}),
  });
}
