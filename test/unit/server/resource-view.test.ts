import { describe, expect, it } from "vitest";
import { resourceView } from "../../../src/server/resource-view.ts";

describe("resourceView", () => {
  const stored = (creationTimestamp?: string | Date) => ({
    metadata: { name: "run-1", namespace: "team-a", ...(creationTimestamp ? { creationTimestamp } : {}) },
    spec: { provider: "argo" },
  });

  it("answers the API server's timestamp as it sent it, and a Date as RFC 3339", () => {
    expect(resourceView(stored("2026-12-07T07:56:08Z")).createdAt).toBe("2026-12-07T07:56:08Z");
    expect(resourceView(stored(new Date("2026-12-07T07:56:08Z"))).createdAt).toBe("2026-12-07T07:56:08.000Z");
  });

  it("leaves createdAt and status out when the object has none", () => {
    expect(resourceView(stored())).toEqual({
      name: "run-1",
      namespace: "team-a",
      spec: { provider: "argo" },
    });
  });
});
