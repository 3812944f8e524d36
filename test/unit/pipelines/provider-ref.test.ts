import { describe, expect, it } from "vitest";
import type { Provider } from "../../../src/apis/pipelines/provider.ts";
import { checkCron } from "../../../src/pipelines/controllers/cron.ts";
import { providerKey, providerProblem } from "../../../src/pipelines/provider-ref.ts";

const provider = (namespace: string, spec: Partial<Provider["spec"]> = {}): Provider => ({
  apiVersion: "pipelines.slipway.dev/v1alpha1",
  kind: "Provider",
  metadata: { name: "argo", namespace },
  spec: { type: "argo", ...spec },
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
    expect(providerProblem("argo", "team", provider("team", { type: "kfp" }))?.reason).toBe(
      "BackendUnavailable",
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
