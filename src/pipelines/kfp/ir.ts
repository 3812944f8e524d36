/** The part of KFP's pipeline spec IR (`PipelineSpec`, schema 2.1.0, pipeline_spec.proto) Slipway emits. */

/** `ParameterType.ParameterTypeEnum` of the proto: the types a Slipway parameter can have. */
export type ParameterType = "STRING" | "NUMBER_INTEGER" | "NUMBER_DOUBLE" | "BOOLEAN";

/** A parameter's value as protobuf JSON writes a `google.protobuf.Value`. */
export type ParameterValue = string | number | boolean;

export interface ParameterSpec {
  parameterType: ParameterType;
  defaultValue?: ParameterValue;
  isOptional?: boolean;
}

/** `ArtifactTypeSchema`: what kfp.dsl writes for `dsl.Artifact` (Input[Artifact], Output[Artifact]). */
export interface ArtifactSpec {
  artifactType: { schemaTitle: string; schemaVersion: string };
}

export interface ComponentSpec {
  executorLabel: string;
  inputDefinitions?: {
    parameters?: Record<string, ParameterSpec>;
    artifacts?: Record<string, ArtifactSpec>;
  };
  outputDefinitions?: {
    parameters?: Record<string, { parameterType: ParameterType }>;
    artifacts?: Record<string, ArtifactSpec>;
  };
}

/**
 * `PipelineContainerSpec.ResourceSpec`. The SDK writes the string fields and, for older KFP
 * installations, the deprecated numeric ones beside them (CPU in cores, memory in GB).
 */
export interface ResourceSpec {
  cpuLimit?: number;
  cpuRequest?: number;
  memoryLimit?: number;
  memoryRequest?: number;
  resourceCpuLimit?: string;
  resourceCpuRequest?: string;
  resourceMemoryLimit?: string;
  resourceMemoryRequest?: string;
  /** `count` is an int64, which protobuf JSON writes as a string. */
  accelerator?: { count: string; resourceCount: string; resourceType: string; type: string };
}

export interface ContainerSpec {
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value: string }[];
  resources?: ResourceSpec;
}

/** `PipelineTaskSpec.RetryPolicy`: protobuf JSON writes a Duration as seconds with an `s` (`30s`). */
export interface RetryPolicySpec {
  maxRetryCount: number;
  backoffDuration: string;
  backoffFactor: number;
  backoffMaxDuration: string;
}

/** `TaskInputsSpec.InputParameterSpec`: a parameter of the pipeline, or another task's output. */
export type TaskInputParameter =
  | { componentInputParameter: string }
  | { taskOutputParameter: { outputParameterKey: string; producerTask: string } };

/** `TaskInputsSpec.InputArtifactSpec`: another task's output artifact. */
export interface TaskInputArtifact {
  taskOutputArtifact: { outputArtifactKey: string; producerTask: string };
}

export interface TaskSpec {
  cachingOptions: { enableCache: boolean };
  componentRef: { name: string };
  dependentTasks?: string[];
  inputs?: {
    parameters?: Record<string, TaskInputParameter>;
    artifacts?: Record<string, TaskInputArtifact>;
  };
  retryPolicy?: RetryPolicySpec;
  taskInfo: { name: string };
}

export interface PipelineSpec {
  components: Record<string, ComponentSpec>;
  defaultPipelineRoot?: string;
  deploymentSpec: { executors: Record<string, { container: ContainerSpec }> };
  pipelineInfo: { name: string; description?: string };
  root: {
    dag: { tasks: Record<string, TaskSpec> };
    inputDefinitions?: { parameters: Record<string, ParameterSpec> };
  };
  schemaVersion: "2.1.0";
  sdkVersion: string;
}
