import { beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { ResourceType } from "../../../src/kube/types.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api } from "../../support/fakes/pipelines-operator.ts";

const group = "pipelines.slipway.dev/v1beta1";

describe("pipelines CRDs: the API server refuses bad input with a clear message", () => {
  let api: Api;
  let namespace: string;
  beforeAll(() => installCrds(pipelineKinds));

  async function create(type: ResourceType, name: string, spec: unknown) {
    return api.create(type, {
      apiVersion: group,
      kind: type.kind,
      metadata: { name, namespace },
      spec,
    } as never);
  }

  it("checks provider references, cron syntax, schedule policies, value xor valueFrom, step images, dependencies and retries", async () => {
    namespace = await testNamespace("pl-crd");
    api = new Api(adminConfig());
    const run = (provider: string, parameters: unknown[] = []) => ({
      provider,
      pipeline: "train",
      parameters,
    });

    await expect(create(types.run, "ok-1", run("argo"))).resolves.toBeDefined();
    await expect(create(types.run, "ok-2", run("ml-team/argo"))).resolves.toBeDefined();
    await expect(
      create(types.run, "year", { ...run("argo"), ttlSecondsAfterCompletion: 365 * 86_400 }),
    ).resolves.toBeDefined();
    // 2,147,484 s is past what a Node timer holds: bounded in the schema as well as in the work queue.
    await expect(
      create(types.run, "ttl-forever", { ...run("argo"), ttlSecondsAfterCompletion: 365 * 86_400 + 1 }),
    ).rejects.toThrow(/spec.ttlSecondsAfterCompletion.*less than or equal to 31536000/);
    await expect(create(types.run, "bad-ref", run("a/b/c"))).rejects.toThrow(/spec.provider.*should match/);
    await expect(create(types.run, "bad-ref-2", run("Not Valid"))).rejects.toThrow(/spec.provider/);

    await expect(
      create(
        types.run,
        "both",
        run("argo", [
          { name: "p", value: "1", valueFrom: { runConfigurationRef: { name: "a", outputArtifact: "m" } } },
        ]),
      ),
    ).rejects.toThrow(/a parameter has exactly one of value or valueFrom/);
    await expect(create(types.run, "neither", run("argo", [{ name: "p" }]))).rejects.toThrow(
      /a parameter has exactly one of value or valueFrom/,
    );

    const schedule = (cronExpression: string) => ({ ...run("argo"), schedule: { cronExpression } });
    for (const good of ["*/5 * * * *", "0 0 12 * * MON-FRI", "@hourly", "@daily"]) {
      await expect(
        create(types.runSchedule, `s-${Math.random().toString(36).slice(2, 8)}`, schedule(good)),
      ).resolves.toBeDefined();
    }
    for (const bad of ["every day", "* * *", "@sometimes", "1 2 3 4 5 6 7"]) {
      await expect(create(types.runSchedule, "bad", schedule(bad))).rejects.toThrow(
        /spec.schedule.cronExpression/,
      );
    }
    await expect(
      create(types.runSchedule, "backwards", {
        ...run("argo"),
        schedule: {
          cronExpression: "@daily",
          startTime: "2027-01-02T00:00:00Z",
          endTime: "2027-01-01T00:00:00Z",
        },
      }),
    ).rejects.toThrow(/startTime must be before endTime/);

    // a schedule's policy: maxConcurrency above 1 only with Allow, a deadline only with catchUp
    const policy = (name: string, fields: Record<string, unknown>) =>
      create(types.runSchedule, name, { ...schedule("@daily"), ...fields });
    await expect(policy("allow-3", { concurrencyPolicy: "Allow", maxConcurrency: 3 })).resolves.toBeDefined();
    await expect(
      policy("forbid-1", { concurrencyPolicy: "Forbid", maxConcurrency: 1 }),
    ).resolves.toBeDefined();
    await expect(policy("deadline", { catchUp: true, startingDeadlineSeconds: 600 })).resolves.toBeDefined();
    await expect(policy("forbid-3", { maxConcurrency: 3 })).rejects.toThrow(
      /spec.maxConcurrency: Invalid value.*maxConcurrency above 1 needs concurrencyPolicy Allow/,
    );
    await expect(policy("replace-2", { concurrencyPolicy: "Replace", maxConcurrency: 2 })).rejects.toThrow(
      /spec.maxConcurrency: Invalid value.*maxConcurrency above 1 needs concurrencyPolicy Allow/,
    );
    await expect(policy("no-catch-up", { startingDeadlineSeconds: 60 })).rejects.toThrow(
      /spec.startingDeadlineSeconds: Invalid value.*startingDeadlineSeconds bounds catch-up: it needs catchUp: true/,
    );
    await expect(policy("queue", { concurrencyPolicy: "Queue" })).rejects.toThrow(
      /spec.concurrencyPolicy.*Unsupported value.*"Allow", "Forbid", "Replace"/,
    );
    // the same rules on each of a RunConfiguration's schedules
    const configuration = (name: string, schedules: unknown[]) =>
      create(types.runConfiguration, name, {
        provider: "argo",
        run: { pipeline: "train" },
        triggers: { schedules },
      });
    await expect(
      configuration("rc-ok", [{ cronExpression: "@daily", concurrencyPolicy: "Allow", maxConcurrency: 2 }]),
    ).resolves.toBeDefined();
    await expect(
      configuration("rc-bad", [
        { cronExpression: "@daily" },
        { cronExpression: "@hourly", maxConcurrency: 2 },
      ]),
    ).rejects.toThrow(
      /spec.triggers.schedules\[1\].maxConcurrency: Invalid value.*needs concurrencyPolicy Allow/,
    );
    await expect(
      configuration("rc-backwards", [
        { cronExpression: "@daily", startTime: "2027-01-02T00:00:00Z", endTime: "2027-01-01T00:00:00Z" },
      ]),
    ).rejects.toThrow(/startTime must be before endTime/);

    await expect(
      create(types.pipeline, "no-image", { provider: "argo", steps: [{ name: "a" }] }),
    ).rejects.toThrow(/every step needs an image/);
    await expect(
      create(types.pipeline, "dangling", {
        provider: "argo",
        image: "i",
        steps: [{ name: "a", dependsOn: ["zzz"] }],
      }),
    ).rejects.toThrow(/dependsOn must name other steps/);
    const retried = (name: string, retry: unknown) =>
      create(types.pipeline, name, { provider: "argo", image: "i", steps: [{ name: "a", retry }] });
    await expect(
      retried("retry-ok", {
        limit: 3,
        policy: "Always",
        backoff: { duration: "1m30s", factor: 2, maxDuration: "2h" },
      }),
    ).resolves.toBeDefined();
    await expect(retried("retry-zero", { limit: 0 })).rejects.toThrow(
      /spec.steps\[0\].retry.limit.*greater than or equal to 1/,
    );
    await expect(retried("retry-no-limit", { backoff: { duration: "1s" } })).rejects.toThrow(
      /spec.steps\[0\].retry.limit: Required value/,
    );
    await expect(retried("retry-policy", { limit: 1, policy: "OnTransientError" })).rejects.toThrow(
      /spec.steps\[0\].retry.policy.*Unsupported value.*"OnFailure", "OnError", "Always"/,
    );
    await expect(retried("retry-unit", { limit: 1, backoff: { duration: "2d" } })).rejects.toThrow(
      /spec.steps\[0\].retry.backoff.duration.*should match/,
    );
    await expect(retried("retry-long", { limit: 1, backoff: { duration: "25h" } })).rejects.toThrow(
      /spec.steps\[0\].retry.backoff.duration.*a duration from 1s to 24h/,
    );
    await expect(
      retried("retry-short-max", { limit: 1, backoff: { duration: "10m", maxDuration: "5m" } }),
    ).rejects.toThrow(/spec.steps\[0\].retry.backoff.maxDuration.*maxDuration must be at least duration/);
    await expect(
      retried("retry-factor", { limit: 1, backoff: { duration: "1s", factor: 1.5 } }),
    ).rejects.toThrow(/spec.steps\[0\].retry.backoff.factor.*integer/);
    await expect(create(types.provider, "p", { type: "airflow" })).rejects.toThrow(
      /spec.type.*Unsupported value/,
    );
  });

  it("checks steps' inputs and outputs: every reference names a step, its output of the right kind, or a pipeline parameter", async () => {
    namespace = await testNamespace("pl-crd-io");
    const producer = {
      name: "prepare",
      outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "dataset" }] },
    };
    const consumer = (inputs: unknown, extra: Record<string, unknown> = {}) => ({
      name: "train",
      inputs,
      ...extra,
    });
    const pipeline = (name: string, steps: unknown[]) =>
      create(types.pipeline, name, {
        provider: "argo",
        image: "i",
        parameters: [{ name: "learning-rate", default: "0.1" }],
        steps,
      });
    const good = {
      parameters: [
        { name: "rows", from: { step: "prepare", output: "rows" } },
        { name: "lr", from: { parameter: "learning-rate" } },
      ],
      artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
    };
    await expect(
      pipeline("io-ok", [producer, consumer(good, { outputs: { artifacts: [{ name: "model" }] } })]),
    ).resolves.toBeDefined();

    const refused: [string, unknown[], RegExp][] = [
      [
        "io-unknown-step",
        [producer, consumer({ artifacts: [{ name: "data", from: { step: "fetch", output: "dataset" } }] })],
        /spec.steps: Invalid value.*inputs.\*.from.step must name a step of this pipeline/,
      ],
      [
        "io-self",
        [
          {
            ...producer,
            inputs: { parameters: [{ name: "again", from: { step: "prepare", output: "rows" } }] },
          },
        ],
        /spec.steps: Invalid value.*a step cannot take its own outputs as inputs/,
      ],
      [
        "io-unknown-output",
        [producer, consumer({ parameters: [{ name: "rows", from: { step: "prepare", output: "count" } }] })],
        /spec.steps: Invalid value.*inputs.parameters\[\].from.output must name an output parameter of that step/,
      ],
      [
        "io-wrong-kind",
        [producer, consumer({ artifacts: [{ name: "data", from: { step: "prepare", output: "rows" } }] })],
        /spec.steps: Invalid value.*inputs.artifacts\[\].from.output must name an output artifact of that step/,
      ],
      [
        "io-unknown-parameter",
        [producer, consumer({ parameters: [{ name: "lr", from: { parameter: "lr" } }] })],
        /spec.steps: Invalid value.*inputs.parameters\[\].from.parameter must name one of spec.parameters/,
      ],
      [
        "io-both-sources",
        [
          producer,
          consumer({ parameters: [{ name: "lr", from: { parameter: "learning-rate", step: "prepare" } }] }),
        ],
        /spec.steps\[1\].inputs.parameters\[0\].from: Invalid value.*from a step's output \(step and output\) or from a parameter/,
      ],
      [
        "io-same-name",
        [{ name: "a", outputs: { parameters: [{ name: "x" }], artifacts: [{ name: "x" }] } }],
        /spec.steps\[0\].outputs: Invalid value.*an output parameter and an output artifact of a step cannot have the same name/,
      ],
      [
        "io-in-out",
        [producer, consumer(good, { outputs: { parameters: [{ name: "data" }] } })],
        /spec.steps\[1\].inputs: Invalid value.*a step's inputs and outputs cannot share a name/,
      ],
      [
        "io-in-same",
        [
          producer,
          consumer({
            parameters: [{ name: "data", from: { step: "prepare", output: "rows" } }],
            artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
          }),
        ],
        /spec.steps\[1\].inputs: Invalid value.*an input parameter and an input artifact of a step cannot have the same name/,
      ],
      [
        "io-bad-name",
        [{ name: "a", outputs: { artifacts: [{ name: "Model-1" }] } }],
        /spec.steps\[0\].outputs.artifacts\[0\].name.*should match/,
      ],
    ];
    for (const [name, steps, message] of refused)
      await expect(pipeline(name, steps)).rejects.toThrow(message);

    // the largest Pipeline the schema allows is within the API server's CEL cost budget: it is accepted
    const wide = Array.from({ length: 32 }, (_, i) => ({
      name: `s${i}`,
      outputs: {
        parameters: Array.from({ length: 8 }, (_, j) => ({ name: `p${j}` })),
        artifacts: Array.from({ length: 8 }, (_, j) => ({ name: `a${j}` })),
      },
      inputs:
        i === 0
          ? undefined
          : {
              parameters: Array.from({ length: 10 }, (_, j) => ({
                name: `in_p${j}`,
                from: { step: `s${i - 1}`, output: `p${j % 8}` },
              })),
              artifacts: Array.from({ length: 16 }, (_, j) => ({
                name: `in_a${j}`,
                from: { step: `s${j % i}`, output: `a${j % 8}` },
              })),
            },
    }));
    await expect(pipeline("io-wide", wide)).resolves.toBeDefined();
    api.close();
  });

  it("checks caching policies on the Provider, the Pipeline, a step and the Run, naming the field", async () => {
    namespace = await testNamespace("pl-crd-cache");
    api = new Api(adminConfig());
    const pipeline = (name: string, caching: unknown, stepCaching?: unknown) =>
      create(types.pipeline, name, {
        provider: "argo",
        image: "i",
        ...(caching === undefined ? {} : { caching }),
        steps: [{ name: "a", ...(stepCaching === undefined ? {} : { caching: stepCaching }) }],
      });
    await expect(
      pipeline("cache-ok", { enabled: true, maxAge: "1h30m" }, { enabled: false }),
    ).resolves.toBeDefined();
    await expect(pipeline("cache-empty", {})).rejects.toThrow(
      /spec.caching: Invalid value.*a caching policy sets enabled, maxAge or both/,
    );
    await expect(pipeline("cache-unit", undefined, { maxAge: "2d" })).rejects.toThrow(
      /spec.steps\[0\].caching.maxAge.*should match/,
    );
    await expect(pipeline("cache-long", { maxAge: "8761h" })).rejects.toThrow(
      /spec.caching.maxAge.*a duration from 1s to 8760h/,
    );
    await expect(pipeline("cache-type", { enabled: "yes" })).rejects.toThrow(/spec.caching.enabled.*boolean/);
    // a misspelt field is pruned (no field validation asked): the policy is then empty
    await expect(pipeline("cache-field", { enable: true })).rejects.toThrow(
      /spec.caching: Invalid value.*a caching policy sets enabled, maxAge or both/,
    );
    const run = (name: string, caching: unknown) =>
      create(types.run, name, { provider: "argo", pipeline: "train", caching });
    await expect(run("run-cache-ok", { enabled: false })).resolves.toBeDefined();
    await expect(run("run-cache-zero", { maxAge: "0s" })).rejects.toThrow(
      /spec.caching.maxAge.*a duration from 1s to 8760h/,
    );
    await expect(
      create(types.provider, "argo-cache", {
        type: "argo",
        defaultCaching: { enabled: true, maxAge: "24h" },
      }),
    ).resolves.toBeDefined();
    await expect(
      create(types.provider, "kfp-cache", { type: "kfp", defaultCaching: { enabled: true } }),
    ).resolves.toBeDefined();
    await expect(
      create(types.provider, "kfp-cache-age", {
        type: "kfp",
        defaultCaching: { enabled: true, maxAge: "24h" },
      }),
    ).rejects.toThrow(/spec.defaultCaching.maxAge: Invalid value.*kfp and vertex have no maximum age/);
    await expect(
      create(types.provider, "vertex-cache-age", { type: "vertex", defaultCaching: { maxAge: "1h" } }),
    ).rejects.toThrow(/spec.defaultCaching.maxAge/);
    api.close();
  });
});
