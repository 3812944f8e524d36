import { describe, expect, it } from "vitest";
import { ownerReference } from "../../../src/kube/owners.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { deriveRbac } from "../../../src/operator/rbac.ts";
import { ownerMetadata } from "../../../src/pipelines/argo/names.ts";
import { runWorkflowOwnerProblem } from "../../../src/pipelines/argo/run-workflow-owner.ts";
import { backends } from "../../../src/pipelines/backends.ts";
import { runController } from "../../../src/pipelines/controllers/run.ts";

const run = (uid: string, namespace = "ml") => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Run",
  metadata: { name: "r1", namespace, uid },
});

/** A Run's Workflow as the argo backend renders it: owned by the Run in the Provider's namespace, by annotation elsewhere. */
function runWorkflow(options: { uid?: string; runNamespace?: string; deleting?: boolean } = {}): KubeObject {
  const runNamespace = options.runNamespace ?? "ml";
  const metadata = ownerMetadata({ object: {}, kind: "Run", namespace: runNamespace, name: "r1" });
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Workflow",
    metadata: {
      name: `${runNamespace}.r1`,
      namespace: "ml",
      ...metadata,
      ...(options.uid ? { ownerReferences: [ownerReference(run(options.uid, runNamespace))] } : {}),
      ...(options.deleting ? { deletionTimestamp: new Date("2030-01-01T00:00:00Z") } : {}),
    },
  };
}

describe("whose a Workflow under a Run's Workflow name is", () => {
  it("the Run's own: owned by the Run's uid and annotated with it, or (another namespace) annotated only", () => {
    expect(runWorkflowOwnerProblem(runWorkflow({ uid: "u1" }), runWorkflow({ uid: "u1" }))).toBeUndefined();
    const elsewhere = runWorkflow({ runNamespace: "team" });
    expect(runWorkflowOwnerProblem(elsewhere, elsewhere)).toBeUndefined();
  });

  it("another's: no owner annotation, or one naming another Run, named in the message", () => {
    const stranger: KubeObject = { metadata: { name: "ml.r1", namespace: "ml" } };
    expect(runWorkflowOwnerProblem(stranger, runWorkflow({ uid: "u1" }))).toBe(
      'the Workflow ml/ml.r1 exists and is not this Run\'s (its pipelines.slipway.dev/owner annotation is not set, not "Run/ml/r1"): it is left alone; delete or rename it for this Run to start',
    );
    const other = runWorkflow({ runNamespace: "team" });
    expect(runWorkflowOwnerProblem(other, runWorkflow({ uid: "u1" }))).toMatch(
      /^the Workflow ml\/team\.r1 exists and is not this Run's \(its pipelines.slipway.dev\/owner annotation is "Run\/team\/r1", not "Run\/ml\/r1"\)/,
    );
  });

  it("an earlier Run's of the same name (another uid), or one without the Run's owner reference: not taken over", () => {
    expect(runWorkflowOwnerProblem(runWorkflow({ uid: "old" }), runWorkflow({ uid: "new" }))).toBe(
      "the Workflow ml/ml.r1 is not this Run's: its controller is Run r1 uid old, not this Run (uid new) (an earlier Run of this name, or another's): it is left alone, and the Run retries until it is gone",
    );
    expect(runWorkflowOwnerProblem(runWorkflow(), runWorkflow({ uid: "new" }))).toMatch(
      /its controller is not set, not this Run \(uid new\)/,
    );
  });

  it("the Run's own but being deleted: not taken over (it would be gone), created anew later", () => {
    expect(
      runWorkflowOwnerProblem(runWorkflow({ uid: "u1", deleting: true }), runWorkflow({ uid: "u1" })),
    ).toBe("the Workflow ml/ml.r1 of this Run is being deleted: the Run creates it anew once it is gone");
  });
});

describe("the Run controller's rights on Workflows", () => {
  it("create (the POST) and get (whose one already there is): in the RBAC deploy/ is generated from", () => {
    const { namespaced, cluster } = deriveRbac([runController({ backends })]);
    const verbs = [...namespaced, ...cluster]
      .filter((rule) => rule.apiGroups.includes("argoproj.io") && rule.resources.includes("workflows"))
      .flatMap((rule) => rule.verbs);
    expect(verbs).toEqual(expect.arrayContaining(["create", "get"]));
  });
});
