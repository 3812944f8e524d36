import { describe, expect, it } from "vitest";
import type { Provider } from "../../../src/apis/pipelines/provider.ts";
import type { BackendRegistry } from "../../../src/pipelines/backend.ts";
import { backends } from "../../../src/pipelines/backends.ts";
import { checkCron } from "../../../src/pipelines/controllers/cron.ts";
import { providerProblem as problemWith, providerKey } from "../../../src/pipelines/provider-ref.ts";

const providerProblem = (reference: string, namespace: string, provider: Provider | undefined) =>
  problemWith(reference, namespace, provider, backends);

const readyStatus = (status: "True" | "False", observedGeneration = 3) => ({
  conditions: [
    {
      type: "Ready",
      status,
      reason: status === "True" ? "BackendAvailable" : "BackendUnavailable",
      message: status === "True" ? "KFP answered" : "KFP at http://127.0.0.1:1: connection refused",
      observedGeneration,
      lastTransitionTime: "2026-01-01T00:00:00Z",
    },
  ],
});

const provider = (
  namespace: string,
  spec: Partial<Provider["spec"]> = {},
  status: Provider["status"] = readyStatus("True"),
): Provider => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Provider",
  metadata: { name: "argo", namespace, generation: 3 },
  spec: { type: "argo", ...spec },
  status,
});

describe("provider references", () => {
  it("name or namespace/name", () => {
    expect(providerKey("argo", "team")).toEqual({ namespace: "team", name: "argo" });
    expect(providerKey("ml/argo", "team")).toEqual({ namespace: "ml", name: "argo" });
  });

  it("may be used from its own namespace, from allowedNamespaces, or anywhere with *", () => {
    expect(providerProblem("argo", "team", provider("team"))).toBeUndefined();
    expect(
      providerProblem("ml/argo", "team", provider("ml", { allowedNamespaces: ["team"] })),
    ).toBeUndefined();
    expect(providerProblem("ml/argo", "team", provider("ml", { allowedNamespaces: ["*"] }))).toBeUndefined();
  });

  it("says clearly why not", () => {
    expect(providerProblem("ml/argo", "team", provider("ml"))).toEqual({
      reason: "ProviderNotAllowed",
      message:
        "spec.provider: Provider ml/argo does not allow namespace team (its spec.allowedNamespaces: none)",
    });
    expect(providerProblem("ml/argo", "team", undefined)).toEqual({
      reason: "ProviderNotFound",
      message: "spec.provider: Provider ml/argo does not exist",
    });
    expect(
      problemWith("argo", "team", provider("team", { type: "kfp" }), {
        argo: backends.argo as BackendRegistry[string],
      })?.reason,
    ).toBe("BackendUnavailable");
  });

  it("a Provider that is not Ready for its current generation → ProviderNotReady with its Ready message", () => {
    expect(providerProblem("argo", "team", provider("team", {}, readyStatus("False")))).toEqual({
      reason: "ProviderNotReady",
      message:
        "spec.provider: Provider team/argo is not Ready: KFP at http://127.0.0.1:1: connection refused",
    });
    // Ready for an earlier spec says nothing about this one
    expect(providerProblem("argo", "team", provider("team", {}, readyStatus("True", 2)))?.message).toBe(
      "spec.provider: Provider team/argo is not Ready: its backend has not answered yet",
    );
    expect(providerProblem("argo", "team", provider("team", {}, {}))?.reason).toBe("ProviderNotReady");
  });

  it("accepts exactly the provider types of the backend registry", () => {
    const withKfp: BackendRegistry = { ...backends, kfp: backends.argo as BackendRegistry[string] };
    const kfp = provider("team", { type: "kfp" });
    expect(problemWith("argo", "team", kfp, withKfp)).toBeUndefined();
    expect(problemWith("argo", "team", provider("team"), {})?.message).toBe(
      "spec.provider: Provider team/argo has type argo, which this operator does not run yet",
    );
  });
});

describe("cron double-check with croner", () => {
  it.each(["*/5 * * * *", "0 0 12 * * MON-FRI", "@hourly", "@daily", "@weekly"])("accepts %s", (cron) => {
    expect(checkCron(cron)).toBeUndefined();
  });
  it.each(["61 * * * *", "* * 32 * *", "a b c d e"])("refuses %s naming the field", (cron) => {
    expect(checkCron(cron)).toMatchObject({
      reason: "InvalidSchedule",
      message: expect.stringContaining("spec.schedule.cronExpression"),
    });
  });
});
