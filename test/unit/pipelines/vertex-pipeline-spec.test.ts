/** The vertex job's pipelineSpec, kept per Pipeline version: what it depends on, and that a kept one is the job compiled per Run. */
import { describe, expect, it } from "vitest";
import type { ProviderConfig, RunDefinition } from "../../../src/pipelines/backend.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { pipelineJob, pipelineSpecKey, pipelineSpecOf } from "../../../src/pipelines/vertex/requests.ts";
import { vertexSettings } from "../../../src/pipelines/vertex/settings.ts";

const provider = (defaultBeamArgs?: { name: string; value: string }[]): ProviderConfig => ({
  key: { namespace: "ml", name: "vertex" },
  spec: {
    type: "vertex",
    parameters: { project: "ml-project", location: "europe-west4" },
    ...(defaultBeamArgs ? { defaultBeamArgs } : {}),
  } as never,
  version: "p1",
});

const run = (name: string, version: string, image = "alpine"): RunDefinition => ({
  owner: { object: {}, kind: "Run", namespace: "team", name },
  pipeline: {
    owner: { object: {} as never, kind: "Pipeline", namespace: "team", name: "train" },
    name: "train",
    version,
    spec: { provider: "ml/vertex", image, steps: [{ name: "train" }] } as never,
  },
  parameters: [],
  artifacts: [],
});

describe("the vertex pipelineSpec kept per Pipeline version", () => {
  it("is the same for two Runs of one version, another for another version or other Beam arguments", () => {
    expect(pipelineSpecKey(run("a", "v1"), provider())).toBe(pipelineSpecKey(run("b", "v1"), provider()));
    expect(pipelineSpecKey(run("a", "v2"), provider())).not.toBe(pipelineSpecKey(run("a", "v1"), provider()));
    const beam = provider([{ name: "runner", value: "DataflowRunner" }]);
    expect(pipelineSpecKey(run("a", "v1"), beam)).not.toBe(pipelineSpecKey(run("a", "v1"), provider()));
  });

  it("a job built with the kept spec is the job compiled for its own Run", () => {
    const first = run("a", "v1");
    const kept = pipelineSpecOf(first, provider());
    const second = run("b", "v1");
    const settings = vertexSettings(provider(), outboundPolicy({ ambientCredentialsNamespaces: ["*"] }));
    expect(pipelineJob(second, provider(), settings, kept)).toEqual(
      pipelineJob(second, provider(), settings),
    );
  });

  it("a Pipeline the IR cannot express fails naming the Pipeline and the field once", () => {
    const retried = run("a", "v1");
    retried.pipeline.spec = {
      ...retried.pipeline.spec,
      steps: [{ name: "train", retry: { limit: 1, policy: "OnError" } }],
    };
    expect(() => pipelineSpecOf(retried, provider())).toThrow(
      /^spec\.pipeline: Pipeline train: spec\.steps\[0\]\.retry\.policy: KFP's IR has no retry policy: .*; OnError is for argo$/,
    );
  });
});
