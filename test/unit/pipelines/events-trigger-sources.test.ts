import { describe, expect, it } from "vitest";
import type { Provider } from "../../../src/apis/pipelines/provider.ts";
import type { RunConfiguration } from "../../../src/apis/pipelines/run-configuration.ts";
import { runConfigurationStatus } from "../../../src/pipelines/controllers/run-configuration.ts";
import { keyText } from "../../../src/pipelines/provider-ref.ts";
import { planRunConfiguration } from "../../../src/pipelines/run-configuration-plan.ts";
import {
  type TriggerLookup,
  triggerSources,
  triggerSourceText,
} from "../../../src/pipelines/trigger-sources.ts";

const configuration = (
  namespace: string,
  name: string,
  provider: string,
  runConfigurations?: string[],
  succeeded?: string,
): RunConfiguration => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "RunConfiguration",
  metadata: { name, namespace },
  spec: {
    provider,
    run: { pipeline: "train" },
    ...(runConfigurations ? { triggers: { runConfigurations } } : {}),
  },
  ...(succeeded ? { status: { latestRuns: { succeeded: { id: succeeded } } } } : {}),
});

const provider = (namespace: string, allowedNamespaces?: string[]): Provider => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Provider",
  metadata: { name: "argo", namespace },
  spec: { type: "argo", ...(allowedNamespaces ? { allowedNamespaces } : {}) },
});

function lookup(configurations: RunConfiguration[], providers: Provider[]): TriggerLookup {
  const key = (o: { metadata: { namespace?: string; name?: string } }) =>
    keyText({ namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" });
  return {
    configuration: (k) => configurations.find((c) => key(c) === keyText(k)),
    provider: (k) => providers.find((p) => key(p) === keyText(k)),
  };
}

describe("trigger sources of a RunConfiguration", () => {
  const training = configuration("data", "training", "argo", undefined, "training-1");
  const local = configuration("team", "prepare", "argo", undefined, "prepare-7");

  it("sees a source in its own namespace always, and one in another namespace its Provider allows", () => {
    const deploy = configuration("team", "deploy", "argo", ["prepare", "data/training"]);
    const sources = triggerSources(deploy, lookup([training, local], [provider("data", ["team"])]));
    expect(sources.sourceRuns).toEqual({ prepare: "prepare-7", "data/training": "training-1" });
    expect(sources.condition).toMatchObject({ type: "TriggersAllowed", status: "True", reason: "Allowed" });
    const star = triggerSources(deploy, lookup([training, local], [provider("data", ["*"])]));
    expect(star.sourceRuns["data/training"]).toBe("training-1");
    const own = configuration("data", "deploy", "argo", ["data/training"]);
    expect(triggerSources(own, lookup([training], [provider("data")])).sourceRuns).toEqual({
      "data/training": "training-1",
    });
  });

  it("refuses a source whose Provider does not allow this namespace, saying why; the rest still trigger", () => {
    const deploy = configuration("team", "deploy", "argo", ["prepare", "data/training"]);
    const sources = triggerSources(deploy, lookup([training, local], [provider("data", ["ml"])]));
    expect(sources.sourceRuns).toEqual({ prepare: "prepare-7" });
    expect(sources.condition).toEqual({
      type: "TriggersAllowed",
      status: "False",
      reason: "SourceNotAllowed",
      message:
        "spec.triggers.runConfigurations: RunConfiguration data/training runs on Provider data/argo, which does not allow namespace team (its spec.allowedNamespaces: ml): its runs do not trigger this one",
    });
    const noProvider = triggerSources(deploy, lookup([training, local], []));
    expect(noProvider.condition?.message).toContain("runs on Provider data/argo, which does not exist");
    expect(noProvider.sourceRuns).toEqual({ prepare: "prepare-7" });
  });

  it("a source that does not exist yet: Unknown, nothing triggered; no runConfigurations: no condition", () => {
    const deploy = configuration("team", "deploy", "argo", ["data/training"]);
    expect(triggerSources(deploy, lookup([], []))).toEqual({
      sourceRuns: {},
      condition: {
        type: "TriggersAllowed",
        status: "Unknown",
        reason: "SourceNotFound",
        message: "spec.triggers.runConfigurations: RunConfiguration data/training does not exist (yet)",
      },
    });
    expect(triggerSources(configuration("team", "x", "argo"), lookup([], []))).toEqual({ sourceRuns: {} });
  });

  it("a refused source's run creates no Run; once allowed, its run does, and the status keeps the condition", () => {
    const deploy = configuration("team", "deploy", "argo", ["data/training"]);
    const observed = { runs: [], schedules: [] };
    const refused = triggerSources(deploy, lookup([training], [provider("data")]));
    const none = planRunConfiguration(deploy, { ...observed, sourceRuns: refused.sourceRuns });
    expect(none.run).toBeUndefined();
    expect(runConfigurationStatus(deploy, none, [], refused.condition).status.conditions).toContainEqual(
      expect.objectContaining({ type: "TriggersAllowed", status: "False" }),
    );
    const allowed = triggerSources(deploy, lookup([training], [provider("data", ["team"])]));
    const plan = planRunConfiguration(deploy, { ...observed, sourceRuns: allowed.sourceRuns });
    expect(plan.run?.reasons).toEqual(["RunConfiguration data/training run training-1 succeeded"]);
    expect(plan.triggers.runConfigurations).toEqual({ "data/training": "training-1" });
  });

  it("indexes an entry by the namespace/name it names", () => {
    expect(triggerSourceText("training", "team")).toBe("team/training");
    expect(triggerSourceText("data/training", "team")).toBe("data/training");
  });
});
