import { describe, expect, it } from "vitest";
import type { Provider } from "../../../src/apis/pipelines/provider.ts";
import {
  notReadyRequeueMs,
  providerStatus,
  readyCondition,
} from "../../../src/pipelines/controllers/provider.ts";

const provider = (type: "argo" | "kfp", ready?: "True" | "False"): Provider => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Provider",
  metadata: { name: "argo", namespace: "ml", generation: 2 },
  spec: { type },
  ...(ready
    ? {
        status: {
          observedGeneration: 2,
          conditions: [
            {
              type: "Ready",
              status: ready,
              reason: ready === "True" ? "BackendAvailable" : "BackendUnavailable",
              message: "m",
              observedGeneration: 2,
              lastTransitionTime: "2026-01-01T00:00:00Z",
            },
          ],
        },
      }
    : {}),
});

describe("a Provider's Ready condition", () => {
  it("a type without a registered backend → BackendUnavailable naming spec.type", () => {
    expect(readyCondition(provider("kfp"), undefined)).toEqual({
      type: "Ready",
      status: "False",
      reason: "BackendUnavailable",
      message: "spec.type: this operator does not run the kfp backend yet",
    });
  });

  it("the backend's answer, with an Event only when Ready flips, and a requeue while not Ready", () => {
    const up = readyCondition(provider("argo"), { ready: true, message: "Argo Workflows is installed" });
    const first = providerStatus(provider("argo"), up);
    expect(first.event).toEqual({
      type: "Normal",
      reason: "BackendAvailable",
      message: "Argo Workflows is installed",
    });
    expect(first.requeueAfterMs).toBeUndefined();
    expect(providerStatus(provider("argo", "True"), up).event).toBeUndefined();

    const down = readyCondition(provider("argo"), { ready: false, message: "install Argo Workflows" });
    const lost = providerStatus(provider("argo", "True"), down);
    expect(lost.event).toMatchObject({ type: "Warning", reason: "BackendUnavailable" });
    expect(lost.requeueAfterMs).toBe(notReadyRequeueMs);
    expect(lost.status.observedGeneration).toBe(2);
  });
});
