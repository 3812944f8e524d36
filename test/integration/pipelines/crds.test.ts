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
    api.close();
  });
});
