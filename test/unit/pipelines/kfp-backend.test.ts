import { describe, expect, it } from "vitest";
import type { Client } from "../../../src/kube/types.ts";
import type { ProviderConfig, RunDefinition } from "../../../src/pipelines/backend.ts";
import { reusedToken } from "../../../src/pipelines/kfp/auth.ts";
import { kfpRunCompletion } from "../../../src/pipelines/kfp/completion.ts";
import { perClient } from "../../../src/pipelines/kfp/per-client.ts";
import {
  kfpCron,
  recurringRunBody,
  runExperimentId,
  runPipelineReference,
  runtimeParameters,
} from "../../../src/pipelines/kfp/requests.ts";
import { kfpSettings } from "../../../src/pipelines/kfp/settings.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { schedulePolicy } from "../../../src/pipelines/schedule-policy.ts";

const outbound = outboundPolicy();

const provider = (parameters: Record<string, unknown>): ProviderConfig => ({
  key: { namespace: "ml", name: "kfp" },
  spec: { type: "kfp", parameters },
  version: "p1",
});

const synced = (name: string, id: string) => ({ status: { state: "Succeeded", provider: { name, id } } });

const run = (overrides: Partial<RunDefinition> = {}): RunDefinition => ({
  owner: { object: {}, kind: "Run", namespace: "team", name: "r" },
  pipeline: {
    owner: {
      object: synced("ml/kfp", "p-1/v-2") as never,
      kind: "Pipeline",
      namespace: "team",
      name: "train",
    },
    name: "train",
    version: "abc",
    spec: {
      provider: "ml/kfp",
      image: "alpine",
      parameters: [
        { name: "learning-rate", default: "0.5" },
        { name: "epochs", default: "3" },
        { name: "tag" },
      ],
      steps: [{ name: "train" }],
    },
  },
  parameters: [],
  artifacts: [],
  ...overrides,
});

describe("kfp Provider parameters", () => {
  it("endpoint, namespace and auth, with defaults", () => {
    expect(
      kfpSettings(
        provider({
          endpoint: "http://ml-pipeline.kubeflow:8888/",
          namespace: "team-a",
          auth: { serviceAccountToken: { serviceAccount: "kfp-client" } },
        }),
        outbound,
      ),
    ).toEqual({
      endpoint: "http://ml-pipeline.kubeflow:8888",
      namespace: "team-a",
      auth: {
        type: "serviceAccountToken",
        serviceAccount: "kfp-client",
        audience: "pipelines.kubeflow.org",
        expirationSeconds: 3600,
      },
    });
    expect(
      kfpSettings(provider({ endpoint: "https://kfp", auth: { bearerTokenSecret: { name: "t" } } }), outbound)
        .auth,
    ).toEqual({ type: "secret", name: "t", key: "token" });
  });

  it.each([
    [{}, "spec.parameters.endpoint: Expected required property"],
    [{ endpoint: "kfp:8888" }, "spec.parameters.endpoint: the scheme must be http or https, not kfp:"],
    [{ endpoint: "http://u:p@kfp" }, "spec.parameters.endpoint: no credentials (userinfo) in the URL"],
    [{ endpoint: "http://kfp?x=1" }, "spec.parameters.endpoint: no query in the URL"],
    [{ endpoint: "http://kfp#/apis/v1/anything" }, "spec.parameters.endpoint: no fragment (#) in the URL"],
    [
      { endpoint: "http://127.0.0.1:9000" },
      "spec.parameters.endpoint: 127.0.0.1 is loopback, not allowed by the operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW)",
    ],
    [
      { endpoint: "http://169.254.169.254/computeMetadata/v1" },
      "spec.parameters.endpoint: 169.254.169.254 is link-local (cloud metadata), not allowed by the operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW)",
    ],
    [{ endpoint: "http://kfp", namespace: "Team" }, "spec.parameters.namespace: Expected string to match"],
    [
      { endpoint: "http://kfp", auth: {} },
      "spec.parameters.auth: exactly one of bearerTokenSecret or serviceAccountToken",
    ],
    [
      {
        endpoint: "http://kfp",
        auth: { serviceAccountToken: { serviceAccount: "a", expirationSeconds: 60 } },
      },
      "spec.parameters.auth.serviceAccountToken.expirationSeconds: Expected integer to be greater or equal to 600",
    ],
    [
      {
        endpoint: "http://kfp",
        auth: { serviceAccountToken: { serviceAccount: "a", expirationSeconds: 86_401 } },
      },
      "spec.parameters.auth.serviceAccountToken.expirationSeconds: Expected integer to be less or equal to 86400",
    ],
    [{ endpoint: "" }, "spec.parameters.endpoint: Expected string length greater or equal to 1"],
    [
      { endpoint: "http://kfp", auth: { bearerTokenSecret: { name: "t", key: "a/b" } } },
      "spec.parameters.auth.bearerTokenSecret.key: Expected string to match",
    ],
  ])("refuses %j naming the field", (parameters, message) => {
    expect(() => kfpSettings(provider(parameters), outbound)).toThrow(message);
  });
});

describe("kfp request bodies", () => {
  it("cron: 5 fields get KFP's seconds field; 6 fields and descriptors pass", () => {
    expect(kfpCron("30 2 * * *")).toBe("0 30 2 * * *");
    expect(kfpCron("*/10 * * * * *")).toBe("*/10 * * * * *");
    expect(kfpCron("@hourly")).toBe("@hourly");
  });

  it("runtime parameters typed by the Pipeline's defaults, under KFP's names; bad ones name the field", () => {
    expect(
      runtimeParameters(
        run({
          parameters: [
            { name: "learning-rate", value: "0.25" },
            { name: "epochs", value: "7" },
            { name: "tag", value: "x" },
          ],
        }),
      ),
    ).toEqual({ learning_rate: 0.25, epochs: 7, tag: "x" });
    expect(() => runtimeParameters(run({ parameters: [{ name: "epochs", value: "many" }] }))).toThrow(
      'spec.parameters[epochs]: "many" is not a NUMBER_INTEGER (the type of its default)',
    );
    expect(() => runtimeParameters(run({ parameters: [{ name: "epoch", value: "1" }] }))).toThrow(
      "spec.parameters[epoch]: Pipeline train has no such parameter",
    );
  });

  it("a run needs its Pipeline (and Experiment) synchronized in the same Provider", () => {
    expect(runPipelineReference(run(), provider({}))).toEqual({
      pipeline_id: "p-1",
      pipeline_version_id: "v-2",
    });
    const elsewhere = run();
    elsewhere.pipeline.owner.object = synced("ml/other", "p-9/v-9") as never;
    expect(() => runPipelineReference(elsewhere, provider({}))).toThrow(
      "spec.pipeline: Pipeline train is synchronized in provider ml/other, not ml/kfp",
    );
    expect(() => runExperimentId(run({ experimentName: "tuning" }), provider({}))).toThrow(
      "spec.experimentName: Experiment tuning does not exist",
    );
    expect(
      runExperimentId(
        run({ experimentName: "t", experiment: synced("ml/kfp", "e-1") as never }),
        provider({}),
      ),
    ).toBe("e-1");
  });

  it("a recurring run carries the schedule's policy: max_concurrency, no_catchup; a past startTime left out", () => {
    const settings = { endpoint: "http://kfp", namespace: "team-a", auth: { type: "none" as const } };
    const now = Date.parse("2026-06-01T00:00:00Z");
    const body = (policy: Parameters<typeof schedulePolicy>[0], startTime?: string) =>
      recurringRunBody(
        {
          ...run(),
          schedule: { cronExpression: "@daily", ...(startTime ? { startTime } : {}) },
          ...schedulePolicy(policy),
        },
        provider({}),
        settings,
        now,
      );
    expect(body({ concurrencyPolicy: "Allow", maxConcurrency: 4 })).toMatchObject({
      max_concurrency: "4",
      no_catchup: true,
      namespace: "team-a",
      trigger: { cron_schedule: { cron: "@daily" } },
    });
    expect(body({})).toMatchObject({ max_concurrency: "1", no_catchup: true });
    expect(body({ concurrencyPolicy: "Allow", catchUp: true })).toMatchObject({
      max_concurrency: "10",
      no_catchup: false,
    });
    // KFP counts intervals from a start_time even long past: a recurring run made again would repeat runs
    expect(body({}, "2026-01-01T00:00:00Z").trigger.cron_schedule).toEqual({ cron: "@daily" });
    expect(body({}, "2026-07-01T00:00:00Z").trigger.cron_schedule).toEqual({
      cron: "@daily",
      start_time: "2026-07-01T00:00:00Z",
    });
    expect(() => body({ concurrencyPolicy: "Replace" })).toThrow(
      /^spec.concurrencyPolicy: a KFP recurring run cannot stop a running run/,
    );
    expect(() => body({ catchUp: true, startingDeadlineSeconds: 60 })).toThrow(
      /^spec.startingDeadlineSeconds: a KFP recurring run catches up every missed run/,
    );
  });
});

describe("kfp run completion", () => {
  it("terminal states, finish time and artifacts by their ML Metadata id", () => {
    const details = {
      task_details: [{ display_name: "train", outputs: { model: { artifact_ids: ["42"] } } }],
    };
    const wanted = [
      { name: "model", path: "train:model" },
      { name: "metrics", path: "train:metrics" },
    ];
    expect(kfpRunCompletion({ state: "RUNNING" }, wanted)).toBeUndefined();
    expect(
      kfpRunCompletion(
        { state: "SUCCEEDED", finished_at: "2026-01-01T00:00:00Z", run_details: details },
        wanted,
      ),
    ).toEqual({
      state: "Succeeded",
      finishedAt: "2026-01-01T00:00:00Z",
      artifacts: [{ name: "model", location: "mlmd://artifacts/42" }],
    });
    expect(kfpRunCompletion({ state: "CANCELED" }, [])?.state).toBe("Failed");
    expect(kfpRunCompletion({ state: "FAILED" }, [])?.state).toBe("Failed");
  });
});

describe("kfp token reuse", () => {
  it("read once per interval, again after KFP refused it, and again after a failed read", async () => {
    let clock = 0;
    const reads: string[] = [];
    let fail = false;
    const token = reusedToken(
      async () => {
        reads.push(`read@${clock}`);
        if (fail) throw new Error("no Secret");
        return `t${reads.length}`;
      },
      60_000,
      () => clock,
    );
    expect(await token.get()).toBe("t1");
    clock = 59_999;
    expect(await token.get()).toBe("t1");
    clock = 60_000;
    expect(await token.get()).toBe("t2");
    token.forget();
    expect(await token.get()).toBe("t3");
    token.forget();
    fail = true;
    await expect(token.get()).rejects.toThrow("no Secret");
    fail = false;
    expect(await token.get()).toBe("t5");
    expect(reads).toEqual(["read@0", "read@60000", "read@60000", "read@60000", "read@60000"]);
  });

  it("kept per operator client and Provider configuration", () => {
    const memo = perClient<string>();
    const [a, b] = [{} as Client, {} as Client];
    let made = 0;
    const make = () => `c${++made}`;
    const p1 = provider({ endpoint: "http://kfp" });
    expect(memo(a, p1, make)).toBe("c1");
    expect(memo(a, p1, make)).toBe("c1");
    expect(memo(b, p1, make)).toBe("c2");
    expect(memo(a, { ...p1, version: "p2" }, make)).toBe("c3");
    memo.forget(a, p1);
    expect(memo(a, p1, make)).toBe("c4");
  });
});
