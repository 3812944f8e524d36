import { describe, expect, it } from "vitest";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { matchPath } from "../../../src/kube/ops-server.ts";
import { platformStatusAnswer, platformStatusRoute } from "../../../src/platform/status-route.ts";

describe("the operator's Platform status endpoint", () => {
  it("matches /namespaces/{ns}/platforms/{name}/status and nothing else", () => {
    const path = platformStatusRoute.path;
    expect(matchPath(path, "/namespaces/team-a/platforms/slipway/status")).toEqual({
      namespace: "team-a",
      name: "slipway",
    });
    expect(matchPath(path, "/namespaces/team-a/platforms/slipway")).toBeUndefined();
    expect(matchPath(path, "/namespaces//platforms/slipway/status")).toBeUndefined();
    expect(matchPath(path, "/namespaces/a/platforms/b/status/extra")).toBeUndefined();
    expect(matchPath(path, "/namespaces/a/things/b/status")).toBeUndefined();
    expect(matchPath(path, "/namespaces/%E0%A4%A/platforms/b/status")).toBeUndefined();
  });

  it("answers the cached status, or 404 naming the platform", () => {
    const platform = {
      metadata: { name: "slipway", namespace: "ns", generation: 2, resourceVersion: "42" },
      spec: {},
      status: {
        phase: "Running",
        version: "0.1.0",
        ready: "7/7",
        observedGeneration: 2,
        conditions: [{ type: "Ready", status: "True" }],
        components: [{ name: "postgres", phase: "Ready", ready: "1/1" }],
      },
    } as unknown as PlatformResource;
    const key = { namespace: "ns", name: "slipway" };
    expect(platformStatusAnswer(key, platform)).toMatchObject({
      status: 200,
      body: {
        phase: "Running",
        version: "0.1.0",
        generation: 2,
        observedGeneration: 2,
        conditions: [{ type: "Ready", status: "True" }],
        components: [{ name: "postgres", phase: "Ready" }],
      },
    });
    const missing = platformStatusAnswer(key, undefined);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, error: "Not Found" });
    expect((missing.body as { message: string }).message).toContain("platform slipway in namespace ns");
  });
});
