/** executePlan's Delete with a uid precondition: a 409 stands, unless the command tolerates it. */
import { describe, expect, it } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import { configMapType } from "../../../src/kube/core-types.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { executePlan } from "../../../src/kube/plan.ts";
import { ApiError, RestClient } from "../../../src/kube/rest.ts";
import { StatusWriter } from "../../../src/kube/status-writer.ts";
import type { KubeObject, ReconcileContext } from "../../../src/kube/types.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

describe("executePlan Delete", () => {
  it("leaves an object of another uid in place: a 409, or nothing with tolerateConflict", async () => {
    const namespace = await testNamespace("plan-delete");
    const rest = new RestClient(adminConfig(), { userAgent: "plan-delete" });
    const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "plan-delete" });
    const object: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "child", namespace },
    };
    const created = await client.create(object);
    const context = { client } as unknown as ReconcileContext;
    const target = { resource: configMapType, object: created, writer: new StatusWriter(), context };
    const key = { namespace, name: "child" };
    const deletion = { type: "Delete" as const, resource: configMapType, key, uid: "another-uid" };

    const refused = await executePlan([deletion], target).then(
      () => 0,
      (error: unknown) => (error instanceof ApiError ? error.status : -1),
    );
    expect(refused).toBe(409);
    expect(await executePlan([{ ...deletion, tolerateConflict: true }], target)).toBeUndefined();
    expect((await client.get(configMapType, key))?.metadata?.uid).toBe(created.metadata?.uid);

    await executePlan([{ ...deletion, uid: created.metadata?.uid ?? "", tolerateConflict: true }], target);
    expect(await client.get(configMapType, key)).toBeUndefined();
  });
});
