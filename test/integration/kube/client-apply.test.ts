/** The runtime's server-side apply does not take fields another field manager set, unless forced. */
import { describe, expect, it } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { ApiError, RestClient } from "../../../src/kube/rest.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

function client(fieldManager: string): KubeClient {
  const rest = new RestClient(adminConfig(), { userAgent: fieldManager });
  return new KubeClient(rest, new ResourceTypes(rest), { fieldManager });
}

const configMap = (namespace: string, data: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "shared", namespace },
  data,
});

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => (error instanceof ApiError ? error.status : -1),
  );

describe("KubeClient.apply", () => {
  it("refuses to change another manager's field (409), changes it with force, and create never overwrites", async () => {
    const namespace = await testNamespace("apply");
    await client("someone-else").apply(configMap(namespace, { owner: "someone-else" }));
    const operator = client("slipway-operator");

    expect(await status(operator.apply(configMap(namespace, { owner: "operator" })))).toBe(409);
    // a field nobody else set is fine
    const merged = await operator.apply(configMap(namespace, { mine: "yes" }));
    expect((merged as { data?: Record<string, string> }).data).toEqual({
      owner: "someone-else",
      mine: "yes",
    });
    expect(await status(operator.create(configMap(namespace, { owner: "operator" })))).toBe(409);

    const forced = await operator.apply(configMap(namespace, { owner: "operator" }), { force: true });
    expect((forced as { data?: Record<string, string> }).data?.owner).toBe("operator");
  });
});
